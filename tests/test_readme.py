"""A README a Sage user starts from (issue 43): short, the two commands of both ways first, one way to set a
project up (adopt) with its undo, and the manual recipes on their own page, as alternatives to adopt."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
MANUAL = ROOT / "docs" / "MANUAL-SETUP.md"


def test_readme_is_at_most_150_lines() -> None:
    assert len(README.splitlines()) <= 150, len(README.splitlines())


def test_the_two_commands_of_both_ways_come_within_the_first_40_lines() -> None:
    head = README.splitlines()[:40]
    commands = [line.strip() for line in head if line.startswith("    ")]
    # pip: install, then adopt at the project's root
    assert commands.index("pip install sage-flags") < commands.index("sage-flags adopt")
    # the bundle: ONE archive for every Sage release, unpacked at the root, then its own adopt
    tar = commands.index("tar -xzf sage-flags-X.Y.Z.tar.gz")
    assert tar < commands.index("sh sage/bin/sage-flags adopt")
    assert "sage-flags-X.Y.Z.tar.gz" in "\n".join(head) and "<vocabulary>" not in README
    assert "project's root" in "\n".join(head)


def test_one_way_to_set_up_with_its_undo_and_what_sage_update_keeps() -> None:
    assert "`sage-flags adopt --undo`" in README
    assert ".claude/skills/flag-parser/" in README and "`sage update` keeps it" in README
    # the vendored way: what else to remove, and who restores Sage's own files
    undo = README[README.index("**Going back:**") :].split("\n\n")[0]
    assert "`sage/bin/sage-flags`" in undo and "`sage/core/flag_parser/_vendor`" in undo
    assert "`sage update` restores Sage's own files" in undo


def test_no_manual_recipe_in_readme_and_the_page_says_they_are_alternatives() -> None:
    for recipe in ("settings-submit.json", "ln -s", "hooks/claude-code/settings.json", "merge "):
        assert recipe not in README, recipe
    assert "[docs/MANUAL-SETUP.md](docs/MANUAL-SETUP.md)" in README
    page = MANUAL.read_text(encoding="utf-8")
    assert page.startswith("# Setting a project up by hand: alternatives to `sage-flags adopt`")
    assert "never in addition to it" in page and "adopt --undo" in page
    for section in ("Windows", "A Claude Code plugin", "No Python anywhere", "The skill by hand", "Codex"):
        assert f"\n## {section}" in page, section


def test_every_hook_registered_by_hand_names_its_vocabulary() -> None:
    page = MANUAL.read_text(encoding="utf-8")
    # every place a hook's command line is spelt out: a JSON handler block, an args array, a command string
    blocks = re.findall(r"((?:^    \{.*\n)(?:^      .*\n)*)", page, re.M)
    assert len(blocks) == 1
    handler = json.loads("".join(blocks))["hooks"]["UserPromptExpansion"][0]["hooks"][0]
    assert handler["args"][:3] == ["--vocabulary", "sage-1.3.18", "hook"]
    calls = list(re.finditer(r'\bhook"?,?\s+"?(?:claude-code|codex)\b', page))
    assert len(calls) >= 4, "the recipes: Claude Code, Windows, a plugin, Codex"
    for call in calls:
        before = page[max(0, call.start() - 60) : call.start()]
        assert "--vocabulary" in before, page[call.start() - 60 : call.end()]
