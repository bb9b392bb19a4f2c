"""The flag-parser skill's files, as the skill tests read them (SPEC section 17).

The skill is the directory sage/core/capabilities/orchestration/flag-parser: SKILL.md (frontmatter, then the
body an agent reads at every workflow start) and references/*.md (one level, read when the body says so).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

from parity.layers import ROOT

SKILL_DIR = ROOT / "sage" / "core" / "capabilities" / "orchestration" / "flag-parser"
SKILL_MD = SKILL_DIR / "SKILL.md"
OLD_PATH = ROOT / "sage" / "core" / "flag_parser" / "SKILL.md"  # a redirect to SKILL_MD since issue 29


def skill_files(skill_dir: Path = SKILL_DIR) -> List[Path]:
    """SKILL.md, then every reference file, sorted."""
    return [skill_dir / "SKILL.md", *sorted((skill_dir / "references").glob("*.md"))]


def split_frontmatter(text: str) -> Tuple[str, str]:
    """(the frontmatter's YAML, the body): the body is everything after the closing `---` line."""
    assert text.startswith("---\n"), "SKILL.md must start with its frontmatter"
    end = text.index("\n---\n", 4)
    return text[4 : end + 1], text[end + len("\n---\n") :]
