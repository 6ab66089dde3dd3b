"""The web view: workspaces, agents and screens in a browser, inside the server's loop.

Nothing here is imported by the CLI; :mod:`herdr.web.host` imports aiohttp only when
a web view is started, so a server without one never pays for it.
"""

from __future__ import annotations
