"""Other machines over the system's OpenSSH: saved machines, ``--machine`` and ``--remote``.

Nothing here speaks SSH itself: every connection is a ``ssh`` subprocess (so the
user's ``~/.ssh/config``, ssh-agent and known_hosts apply) running ``herdr api proxy``
on the remote, which relays its stdio to the remote server's socket.
"""

from __future__ import annotations
