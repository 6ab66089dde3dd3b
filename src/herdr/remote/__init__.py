"""Other machines over the system's OpenSSH: saved machines, ``--machine`` and ``--remote``.

Nothing here speaks SSH itself: every connection goes through the system's ``ssh`` (so
the user's ``~/.ssh/config``, ssh-agent and known_hosts apply): a stream-local forward
on a ControlMaster straight to the remote server's socket (:mod:`herdr.remote.forward`),
else an ``ssh`` running ``herdr api proxy`` on the remote, which relays its stdio to it.
"""

from __future__ import annotations
