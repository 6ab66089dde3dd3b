"""PURE: user kinds that claim the same process name or alias (issue 17).

Registration gives a shared name to one kind only (`agents.set_user_kinds`): a kind's
own label always names it, any other name goes to the first kind in label order (the
file names sorted). That is deterministic but silent, so each clash becomes one
diagnostic on the losing file that names the file that keeps the name. Built-in names
never get here: a user kind that reuses one is refused when parsed.
"""

from __future__ import annotations

from collections.abc import Sequence

from herdr.detect.agents import normalize_label
from herdr.detect.user_kinds import UserKindError, UserKindSpec


def name_conflicts(specs: Sequence[UserKindSpec]) -> list[UserKindError]:
    """One diagnostic per name a later kind (in ``specs`` order) cannot have."""
    owner: dict[str, UserKindSpec] = {}
    for spec in specs:
        owner.setdefault(normalize_label(spec.label), spec)
    out: list[UserKindError] = []
    for spec in specs:
        for key, names in (("process_names", spec.process_names), ("aliases", spec.aliases)):
            for name in names:
                first = owner.setdefault(normalize_label(name), spec)
                if first is not spec:
                    out.append(
                        UserKindError(
                            spec.path,
                            None,
                            f"{key} entry {name!r} is also claimed by {first.path}; "
                            f"{first.label!r} keeps it (a kind's own label first, then "
                            "file name order)",
                        )
                    )
    return out
