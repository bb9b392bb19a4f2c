"""Hatchling hooks of the pure wheel: the repository's package and metadata, read at build time.

- metadata: every field listed as dynamic in pure-wheel/pyproject.toml is the root pyproject.toml's
  (the readme file read from the repository root);
- files: python/sage_flags, every .py file and py.typed, and every file of its data folders (skill/: the skill's
  templates and data, read by sage_flags._render; bash/: the bash port; help/: the help text, read by
  sage_flags._help; adopted/: the wrapper), nothing compiled and no stub of the compiled core (_native.pyi),
  whatever `make setup` left in the directory.
"""

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.metadata.plugin.interface import MetadataHookInterface

try:
    import tomllib
except ImportError:  # Python < 3.11: hatchling depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "python" / "sage_flags"


class RootProjectMetadata(MetadataHookInterface):
    def update(self, metadata: dict) -> None:
        project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        if project["name"] != metadata["name"]:
            raise ValueError("pure-wheel/pyproject.toml names %r, the root %r" % (metadata["name"], project["name"]))
        for key in metadata["dynamic"]:
            metadata[key] = project[key]
        readme = project["readme"]
        text = (ROOT / readme["file"]).read_text(encoding="utf-8")
        metadata["readme"] = {"content-type": readme["content-type"], "text": text}


class PythonPackage(BuildHookInterface):
    def initialize(self, version: str, build_data: dict) -> None:
        for path in sorted(PACKAGE.rglob("*")):
            data = path.is_file() and len(path.relative_to(PACKAGE).parts) > 1  # a data folder: skill/, bash/, help/
            if "__pycache__" in path.parts or not (path.suffix == ".py" or path.name == "py.typed" or data):
                continue
            build_data["force_include"][str(path)] = "sage_flags/" + path.relative_to(PACKAGE).as_posix()
