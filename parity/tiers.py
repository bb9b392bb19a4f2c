"""The suite's two tiers (issue 41): `make test`, the default a contributor runs in minutes, and `make test-full`,
its complement. Every test is in exactly one of them; docs/IMPLEMENTATION.md D29 states the rules, which are:

1. Every vector reaches every implementation in the default: the pure reference (``cli-pure``), the PyO3 binding
   (``cli-native``), the native executable (``exe``) and each bash (``bash``, ``bash-3.2``, ``bash-4.4``): its
   *primary* layers. A config-less parse vector goes there as a record of one batch stream per layer and vocabulary
   (parity/test_vectors.py ``test_*_as_one_batch_stream``); every other vector, which needs a process of its own
   (a config file, stdin, an environment, an exit status), as one process.
2. Every other entry into the same code (``python -m sage_flags``, the drop-in ``python -m core.flag_parser``, the
   launchers, batch given a config path, an installed wheel, the bundle, the Windows simulation) runs a *cover* in
   the default: the smallest set of the vectors it takes that exercises every kind of case and every rule at least
   once (``cover``, the greedy set cover of ``tags``).
3. A product of independent choices (hostile texts x event shapes x layers, scenarios x shells) runs a cover of each
   choice's values per layer in the default (each value at least once, ``rotation_cover``).
4. The Python matrix keeps its oldest and newest Python in the default, on the cover; the other Pythons, and the
   rest of the vectors on those two, are test-full's; so are the builds inside tests (the sdist with cargo, `cargo
   install`, copies of the project for another vocabulary) and the large-vocabulary run past its first records.

Everything else is the default's. test-full runs what the default does not, never the same item twice.

The tier of a test item is decided at collection (``tier_of``), from its node id and its parameters: no test
is generated only to be skipped, and a test file needs no marker (a ``full`` marker or a name in ``FULL_ONLY``
moves a whole test). The root conftest.py applies it (``--tier``).
"""

from __future__ import annotations

import zlib
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

from parity import vectors

DEFAULT = "default"
FULL = "full"
TIERS = (DEFAULT, FULL)

# The layers of parity/layers.py through which every vector runs (rule 1); the bash layers are recognised by their
# interpreter (``Layer.bash``), whatever their name.
PRIMARY_LAYERS = ("cli-pure", "cli-native", "exe")

# The Python matrix (tests/interpreters.py SUPPORTED): the default keeps the ends.
MATRIX_ENDS = ("3.8", "3.13")


def is_primary(layer: object) -> bool:
    """Whether ``layer`` (a parity.layers.Layer) is an implementation's primary entry: every vector runs there."""
    return getattr(layer, "name", None) in PRIMARY_LAYERS or getattr(layer, "bash", None) is not None


def tags(vector: vectors.Vector) -> Set[Tuple[str, str]]:
    """What a vector stands for in a cover: (its command, T) for each rule tag T it lists, and for its config's type,
    its manifest's type, whether it sets an environment or gives stdin, and its exit status."""
    manifest = vector.extra.get("manifest")
    kinds = {
        "config " + (vector.config or {}).get("type", "none"),
        "manifest " + (manifest.get("type", "file") if isinstance(manifest, dict) else "none"),
        "env" if vector.env else "no env",
        "stdin" if vector.stdin else "no stdin",
        f"status {vector.status}",
        *vector.rules,
    }
    return {(vector.command, kind) for kind in kinds}


def cover(every: Sequence[vectors.Vector]) -> Tuple[vectors.Vector, ...]:
    """The cover of ``every``: a fixed subset with every (command, tag) pair of ``tags`` the whole has, so every
    kind of case and every rule. The greedy set cover: again and again the vector bringing the most pairs no earlier
    pick brought (the first in name order on a tie), until none is left. Sorted by name."""
    ordered = sorted(every, key=lambda v: v.name)
    found = {v.name: tags(v) for v in ordered}
    wanted = set().union(*found.values()) if found else set()
    chosen: List[vectors.Vector] = []
    while wanted:
        best = max(ordered, key=lambda v: len(found[v.name] & wanted))  # max: the first of the best, in name order
        chosen.append(best)
        wanted -= found[best.name]
    return tuple(sorted(chosen, key=lambda v: v.name))


# What a test that loops over vectors itself runs, by its `part` parameter (tests/conftest.py ``vector_part``):
# the cover in the default, the rest in test-full; "every" (tools/check_installed.py) all of them.
PARTS = ("cover", "rest")


def part_of(every: Sequence[vectors.Vector], part: str) -> List[vectors.Vector]:
    if part == "every":
        return list(every)
    chosen = {v.name for v in cover(every)}
    if part == "cover":
        return [v for v in every if v.name in chosen]
    if part == "rest":
        return [v for v in every if v.name not in chosen]
    raise ValueError(f"no part {part!r}: {PARTS} or 'every'")


def rotation_cover(values: Sequence[Tuple[str, Sequence[str]]], salt: str) -> Set[Tuple[str, str]]:
    """Rule 3 for one layer: (a, b) pairs of a product where each a comes once, with its b-th choice rotated by a's
    position and by ``salt`` (the layer's name: each layer takes other pairs); every b comes at least once when
    there are as many a's as b's."""
    shift = zlib.crc32(salt.encode("utf-8"))
    chosen = set()
    for index, (a, choices) in enumerate(values):
        chosen.add((a, choices[(index + shift) % len(choices)]))
    return chosen


# ------------------------------------------------------------------------------------------- the rules by test
#
# A test named here by "path::function" (or a whole "path") runs in test-full only.
FULL_ONLY: FrozenSet[str] = frozenset(
    {
        # A copy of the project built for another vocabulary, with its own native core (SPEC B1).
        "tests/test_adding_a_flag.py",
        # The sdist built by pip with cargo: a release build of the core.
        "tests/test_sdist.py::test_with_cargo_the_sdist_builds_the_native_backend",
        # `cargo install --path crates/sage-flags-cli` into a fresh root: a release build of the executable.
        "tests/test_native_exe.py::test_cargo_install_runs_every_native_vector",
        "tests/test_native_exe.py::test_cargo_install_without_python_says_so_in_one_line",
        # Sage 1.3.18's vocabulary built alone into a copy with its own native core (its vectors run through this
        # build's layers in the default: parity/test_vectors.py::test_named_vocabulary_vector).
        "tests/test_vocabulary_sage_1_3.py::test_the_copy_is_generated_and_every_layer_is_there",
        "tests/test_vocabulary_sage_1_3.py::test_128_kib_of_value_flags_in_linear_time",
        "tests/test_vocabulary_sage_1_3.py::test_both_backends_give_equal_results_in_process",
    }
)

# Tests taking a layer and a vector (rule 1 and 2), by how their primary layers run the vectors:
# "streamed": every vector but the config-less parse ones (a batch stream carries those); "every": every vector;
# "cover": no layer is this test's primary entry (batch given a config path: parse is the primary entry of those
# vectors), every layer runs the cover. A test not named here that takes a Layer and a Vector is "every".
LAYER_VECTOR_RULES: Dict[str, str] = {
    "parity/test_vectors.py::test_parse_vector": "streamed",
    "parity/test_vectors.py::test_named_vocabulary_vector": "streamed",
    "parity/test_vectors.py::test_config_vector_through_batch": "cover",
}

# Tests taking a vector but no layer, whose vectors are a cover in the default (rule 2): other entries.
VECTOR_COVER_TESTS: FrozenSet[str] = frozenset(
    {
        "tests/test_windows.py::test_vector_on_windows",
        "tests/test_windows.py::test_manifest_vector_on_windows",
        "tests/test_windows.py::test_config_explain_on_windows",
    }
)


# Products of independent choices (rule 3): "path::function" -> (the parameter each of whose values gets its own
# cover, or None; the parameter each value of which comes once; the parameter whose values rotate).
PRODUCT_TESTS: Dict[str, Tuple[Optional[str], str, str]] = {
    "tests/test_hook.py::test_hostile_text_through_every_layer": ("layer", "name", "shape"),
    # The launcher's scenarios, each under one POSIX shell (rotating), every shell at least once.
    "tests/test_launcher.py::test_output_is_identical_through_every_layer": (None, "which", "shell"),
    # Each command template of the skill under one shell (bash -c or sh -c), both shells at least once.
    "tests/test_skill_templates.py::test_safe_template": (None, "template", "shell"),
    # docs/SPEC.md B3: per entry, each refusal of the vocabulary's name under one subcommand (rotating), every
    # subcommand at least once (the vectors hold the same refusals for parse ... hook through every layer).
    "tests/test_vocabulary_name.py::test_every_refusal_is_status_2_and_b3s_line": ("entry", "refusal", "subcommand"),
    # adopt's own option: each form through one entry (rotating), every entry at least once; adopt honouring a
    # name, and hook's places: each entry with one form (rotating), every form at least once.
    "tests/test_vocabulary_name.py::test_adopts_own_option_is_read_by_the_same_rule": (None, "form", "entry"),
    "tests/test_vocabulary_name.py::test_adopt_honours_a_name_given_before_it": (None, "entry", "how"),
    "tests/test_vocabulary_name.py::test_under_hook_every_place_of_it_fails_open": (None, "entry", "place"),
    # adopt then undo: per entry, each settings file's shape with one .codex/ case (rotating), both layouts.
    "tests/test_adopt_undo.py::test_adopt_then_undo_leaves_every_byte_and_mode": ("adopt", "settings", "codex"),
}


def _matrix(item, params: Dict[str, object]) -> str:
    """Rule 4: the oldest and the newest Python on the cover in the default; every other version, and the rest of
    the vectors, in test-full."""
    return DEFAULT if params.get("version") in MATRIX_ENDS and params.get("part", "cover") == "cover" else FULL


# "path::function" -> a rule of its own (the item, its parameters) -> tier.
EXTRA_RULES: Dict[str, Rule] = {
    "tests/test_matrix.py::test_wheel": _matrix,
    "tests/test_matrix.py::test_compat": _matrix,
}


def streamable(vector: vectors.Vector) -> bool:
    """A parse vector that is one record of a shared batch stream: no config, environment, stdin or usage error
    (its operands joined by spaces are the record, C22)."""
    if vector.command != "parse" or vector.config or vector.env or vector.stdin or vector.before or vector.status == 2:
        return False
    operands, config, _ = vectors.split_argv(vector.argv)
    return config is None and b"--stdin" not in vector.argv and not any(b"\0" in o for o in operands)


Rule = Callable[[object, Dict[str, object]], str]


def function_id(nodeid: str) -> str:
    """The "path::function" of a node id (its parameters and class left out)."""
    path, _, rest = nodeid.partition("::")
    return f"{path}::{rest.split('[', 1)[0].split('::')[-1]}"


def _params(item) -> Dict[str, object]:
    callspec = getattr(item, "callspec", None)
    return dict(callspec.params) if callspec is not None else {}


def _vector_of(params: Dict[str, object]) -> Tuple[Optional[str], Optional[vectors.Vector]]:
    """(the vocabulary, the vector) a test item is given: a Vector, or a (vocabulary, Vector) pair."""
    for value in params.values():
        if isinstance(value, vectors.Vector):
            return None, value
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], vectors.Vector):
            return str(value[0]), value[1]
    return None, None


def _name(value: object) -> str:
    """A parameter as text: a layer by its name."""
    return str(getattr(value, "name", value))


def _layer_of(params: Dict[str, object]) -> object:
    layer = params.get("layer")
    return layer if hasattr(layer, "commands") else None


class Assigner:
    """Decides every collected item's tier; the covers are of the vectors each test takes (per vocabulary)."""

    def __init__(self, items: Sequence[object]) -> None:
        taken: Dict[Tuple[str, Optional[str]], Dict[str, vectors.Vector]] = {}
        for item in items:
            vocabulary, vector = _vector_of(_params(item))
            if vector is not None:
                taken.setdefault((function_id(item.nodeid), vocabulary), {})[vector.name] = vector
        self.covers = {key: {v.name for v in cover(list(found.values()))} for key, found in taken.items()}
        self.products = self._product_covers(items)

    @staticmethod
    def _product_covers(items: Sequence[object]) -> Dict[str, Set[Tuple[str, str, str]]]:
        """PRODUCT_TESTS: per test, the (group, a, b) triples of its items the default runs."""
        choices: Dict[str, Dict[str, Dict[str, List[str]]]] = {}
        for item in items:
            spec = PRODUCT_TESTS.get(function_id(item.nodeid))
            if spec is None:
                continue
            params = _params(item)
            group, a, b = (_name(params.get(spec[0])) if spec[0] else ""), str(params[spec[1]]), str(params[spec[2]])
            found = choices.setdefault(function_id(item.nodeid), {}).setdefault(group, {}).setdefault(a, [])
            found.append(b)
        chosen: Dict[str, Set[Tuple[str, str, str]]] = {}
        for function, groups in choices.items():
            for group, by_a in groups.items():
                pairs = rotation_cover(sorted((a, sorted(bs)) for a, bs in by_a.items()), salt=group)
                chosen.setdefault(function, set()).update((group, a, b) for a, b in pairs)
        return chosen

    def tier_of(self, item) -> str:
        nodeid = item.nodeid
        function = function_id(nodeid)
        if item.get_closest_marker("full") or function in FULL_ONLY or nodeid.split("::", 1)[0] in FULL_ONLY:
            return FULL
        params = _params(item)
        spec = PRODUCT_TESTS.get(function)
        if spec is not None:
            group = _name(params.get(spec[0])) if spec[0] else ""
            picked = (group, str(params[spec[1]]), str(params[spec[2]])) in self.products.get(function, set())
            return DEFAULT if picked else FULL
        if params.get("part") == "rest":
            return FULL
        rule = EXTRA_RULES.get(function)
        if rule is not None:
            return rule(item, params)
        vocabulary, vector = _vector_of(params)
        if vector is None:
            return DEFAULT
        in_cover = vector.name in self.covers[(function, vocabulary)]
        layer = _layer_of(params)
        if layer is None:
            return DEFAULT if in_cover or function not in VECTOR_COVER_TESTS else FULL
        how = LAYER_VECTOR_RULES.get(function, "every")
        if in_cover:
            return DEFAULT
        if how == "cover" or not is_primary(layer):
            return FULL
        if how == "streamed" and streamable(vector) and "batch" in layer.commands:  # type: ignore[attr-defined]
            return FULL
        return DEFAULT


def split(items: Iterable[object], assigner: Assigner) -> Dict[str, List[object]]:
    found: Dict[str, List[object]] = {tier: [] for tier in TIERS}
    for item in items:
        found[assigner.tier_of(item)].append(item)
    return found
