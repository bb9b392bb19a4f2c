"""The flag-parser skill's files, as the skill tests read them (SPEC section 17).

The skill ships only as package data (python/sage_flags/skill/: templates and vocabularies.json), rendered by the
package's one renderer (sage_flags._render) when `sage-flags adopt` writes it (docs/SPEC.md G8): nothing of it is
kept rendered in the repository. The tests read the default vocabulary's rendering, as adopt writes it,
written here into build/skill/<content hash>/flag-parser: SKILL.md (frontmatter, then the body an agent reads at
every workflow start) and references/*.md (one level, read when the body says so).
`python tests/skill_files.py` prints that folder (make lint-skill validates it).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import tempfile
from pathlib import Path
from typing import List, Tuple

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from parity.layers import ROOT


def _rendered_skill() -> Path:
    """The default vocabulary's skill, written once per content (by rename: processes never see half of it)."""
    from sage_flags import _render, _vocab

    files = _render.render(_render.load(_vocab.DEFAULT))
    digest = hashlib.sha256(repr(sorted(files.items())).encode("utf-8")).hexdigest()[:16]
    where = ROOT / "build" / "skill" / digest
    if not where.is_dir():
        where.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=where.parent))
        for rel, text in files.items():
            (partial / "flag-parser" / rel).parent.mkdir(parents=True, exist_ok=True)
            (partial / "flag-parser" / rel).write_text(text, encoding="utf-8")
        try:
            partial.rename(where)
        except OSError:  # another process wrote it first
            shutil.rmtree(partial)
    return where / "flag-parser"


SKILL_DIR = _rendered_skill()
SKILL_MD = SKILL_DIR / "SKILL.md"


def skill_files(skill_dir: Path = SKILL_DIR) -> List[Path]:
    """SKILL.md, then every reference file, sorted."""
    return [skill_dir / "SKILL.md", *sorted((skill_dir / "references").glob("*.md"))]


def split_frontmatter(text: str) -> Tuple[str, str]:
    """(the frontmatter's YAML, the body): the body is everything after the closing `---` line."""
    assert text.startswith("---\n"), "SKILL.md must start with its frontmatter"
    end = text.index("\n---\n", 4)
    return text[4 : end + 1], text[end + len("\n---\n") :]


if __name__ == "__main__":
    print(SKILL_DIR)
