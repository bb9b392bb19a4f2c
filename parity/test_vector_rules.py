"""A vector's `rules` say what it exercises: checked against what the vector actually shows.

Tags are how a reader (and the SPEC coverage test) finds the vectors of a rule, so a wrong tag hides a gap.
What can be read off a vector is checked: it cites a rule (tests/test_rule_references.py checks that each is
defined), the error rule matches the message it expects, config, environment and batch rules match what the
vector sets up.
"""

from __future__ import annotations

import json
import re
from typing import List, Optional

import pytest

from parity import vectors

ALL = [
    *vectors.load_all(before=True),
    *(v for name in ("sage-1.3", "sage-1.3.18") for v in vectors.load_all(vocabulary=name)),
]
ERROR_PREFIXES = {  # E1-E5 of SPEC section 6, by how their messages begin
    "Unknown flag '": "E1",
    "Flag '": "E2",
    "Conflicting flags for ": "E3",
    "Arguments are not valid UTF-8.": "E4",
}


def error_rule(vector: vectors.Vector) -> Optional[str]:
    """The E rule a parse vector's expected JSON line shows, or None for a clean parse."""
    if vector.command != "parse" or vector.status != 1:
        return None
    message = json.loads(vector.stdout)["error"]
    for prefix, rule in ERROR_PREFIXES.items():
        if message.startswith(prefix):
            return rule
    assert re.match(r"--\S+ takes a ", message), message
    return "E5"


def sets_a_config(vector: vectors.Vector) -> bool:
    return vector.config is not None or any(bytes(a).startswith(b"--config-path") for a in vector.argv)


def by_name(items: List[vectors.Vector]) -> dict:
    return {"argvalues": items, "ids": [v.name for v in items]}


@pytest.mark.parametrize("vector", **by_name(ALL))
def test_every_vector_cites_a_rule(vector: vectors.Vector) -> None:
    assert vector.rules, f"{vector.name}: cites no rule"


@pytest.mark.parametrize("vector", **by_name([v for v in ALL if v.command == "parse"]))
def test_a_parse_vector_cites_exactly_the_error_it_expects(vector: vectors.Vector) -> None:
    cited = {rule for rule in vector.rules if re.fullmatch(r"E\d", rule)}
    shown = error_rule(vector)
    assert cited == ({shown} if shown else set()), f"{vector.name}: cites {sorted(cited)}, its output shows {shown}"


@pytest.mark.parametrize("vector", **by_name([v for v in ALL if v.command == "parse"]))
def test_config_and_environment_rules_match_the_setup(vector: vectors.Vector) -> None:
    config_rules = {"C11", "C12", "C13", "C14"} & set(vector.rules)
    assert not config_rules or sets_a_config(vector), f"{vector.name}: cites {sorted(config_rules)} without a config"
    # SAGE_FLAGS_VOCABULARY is the one variable that changes the answer: it names the vocabulary (B2, B3).
    others = [key for key in vector.env if key != "SAGE_FLAGS_VOCABULARY"]
    assert ("C20" in vector.rules) == bool(others), f"{vector.name}: C20 iff the vector sets another environment"
    named = "SAGE_FLAGS_VOCABULARY" in vector.env
    assert not named or {"B2", "B3"} & set(vector.rules), f"{vector.name}: names the vocabulary without B2 or B3"


@pytest.mark.parametrize("vector", **by_name([v for v in ALL if v.command == "batch"]))
def test_a_batch_vector_cites_c22(vector: vectors.Vector) -> None:
    assert "C22" in vector.rules or "D22.1" in vector.rules, vector.name
