"""Punctuation key names shared by ``send-keys`` (server) and ``[keys]`` bindings (client).

One table, so a name a script can send is also a name a binding can use.
"""

from __future__ import annotations

from typing import Final

CHAR_NAMES: Final[dict[str, str]] = {
    "minus": "-",
    "dash": "-",
    "hyphen": "-",
    "plus": "+",
    "backtick": "`",
    "grave": "`",
    "comma": ",",
    "ampersand": "&",
    "period": ".",
    "dot": ".",
    "slash": "/",
    "backslash": "\\",
    "semicolon": ";",
    "colon": ":",
    "quote": "'",
    "apostrophe": "'",
    "doublequote": '"',
    "tilde": "~",
    "exclamation": "!",
    "bang": "!",
    "at": "@",
    "hash": "#",
    "dollar": "$",
    "percent": "%",
    "caret": "^",
    "asterisk": "*",
    "star": "*",
    "leftparen": "(",
    "lparen": "(",
    "rightparen": ")",
    "rparen": ")",
    "underscore": "_",
    "equal": "=",
    "equals": "=",
    "leftbracket": "[",
    "lbracket": "[",
    "rightbracket": "]",
    "rbracket": "]",
    "leftbrace": "{",
    "lbrace": "{",
    "rightbrace": "}",
    "rbrace": "}",
    "pipe": "|",
    "less": "<",
    "lt": "<",
    "greater": ">",
    "gt": ">",
    "question": "?",
}
