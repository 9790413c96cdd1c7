"""The manifest-wide split rule: assignments are complete and leak-free (no speaker in two splits).

Takes iterables of (conv_id, speakers) summaries so the validator, the asset check and the tests can
all call it on a streamed manifest. Messages name conversation ids, roles and splits — never speaker
ids, which may be customer identifiers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..rules.issue import Issue, Severity
from .model import SplitsFile
from .summaries import SplitSummary, as_summary, speaker_keys

_FIX_SPLIT = "run `vak split DATA_DIR` (or materialize the splits asset) after the manifest changes"
MAX_LEAK_ISSUES = 200  # one issue per leaking speaker, capped; the count is in the last message


def _as_splits(splits: SplitsFile | Mapping[str, Any]) -> SplitsFile:
    return splits if isinstance(splits, SplitsFile) else SplitsFile.model_validate(dict(splits))


def check_splits(
    manifest: Iterable[SplitSummary | tuple],
    splits: SplitsFile | Mapping[str, Any],
    roles: Iterable[str] | None = None,
) -> list[Issue]:
    """Issues for: unassigned ids (ERROR), held-out ids (WARN), unknown split names (ERROR), ids assigned but
    absent from the manifest (WARN), and speakers that appear in more than one split (ERROR)."""
    sp = _as_splits(splits)
    roles = list(roles) if roles is not None else list(sp.roles)
    names = set(sp.ratios)
    issues: list[Issue] = []
    seen: set[str] = set()
    # speaker key -> {split: first conversation seen there}
    homes: dict[str, dict[str, str]] = {}
    leaks: dict[str, None] = {}

    for item in manifest:
        s = as_summary(item)
        if s.conv_id in seen:
            continue
        seen.add(s.conv_id)
        split = sp.assignment.get(s.conv_id)
        if split is None:
            if s.conv_id in sp.held_out:
                issues.append(Issue(code="split_held_out", severity=Severity.WARN, family="manifest",
                                    record_id=s.conv_id, field="splits.json:held_out",
                                    message=sp.held_out[s.conv_id].split(". Fix:")[0],
                                    fix="resolve the speaker conflict, then re-run splits; held-out conversations "
                                        "are left out of every export"))
            else:
                issues.append(Issue(code="split_missing", family="manifest", record_id=s.conv_id,
                                    field="splits.json:assignment",
                                    message="conversation is in the manifest but has no split",
                                    fix=_FIX_SPLIT))
            continue
        if split not in names:
            issues.append(Issue(code="split_unknown_name", family="manifest", record_id=s.conv_id,
                                field="splits.json:assignment",
                                message=f"assigned to split '{split}', which is not one of {sorted(names)}",
                                fix="use the split names given in ratios, or add the name to ratios"))
        for key in speaker_keys(s.speakers, roles):
            home = homes.setdefault(key, {})
            if split not in home:
                home[split] = s.conv_id
                if len(home) == 2:
                    leaks[key] = None

    for n, key in enumerate(leaks):
        if n >= MAX_LEAK_ISSUES:
            issues.append(Issue(code="split_leak", family="manifest",
                                message=f"{len(leaks) - MAX_LEAK_ISSUES} more speakers appear in several splits",
                                fix=_FIX_SPLIT))
            break
        role = key.split(":", 1)[0]
        where = ", ".join(f"{conv} ({split})" for split, conv in sorted(homes[key].items()))
        first = min(homes[key].values())
        issues.append(Issue(code="split_leak", family="manifest", record_id=first, field=f"meta.speakers.{role}",
                            message=f"the same {role} speaker appears in {len(homes[key])} splits: {where}",
                            fix="re-run splits (speaker-disjoint), or correct meta.speakers if the ids are wrong"))

    stale = [c for c in sp.assignment if c not in seen]
    if stale:
        issues.append(Issue(code="split_stale_ids", severity=Severity.WARN, family="manifest",
                            field="splits.json:assignment",
                            message=f"{len(stale)} assigned conversation(s) are not in the manifest "
                                    f"(e.g. {', '.join(sorted(stale)[:5])})",
                            fix=_FIX_SPLIT + "; removed conversations move to 'retired' and keep their split"))
    return issues
