//! `sage_flags._native`: the PyO3 binding of sage-flags-core, conversions only; every rule lives in the core.
//! Its Python API is the pure reference's (python/sage_flags/reference.py): `parse`, `load_defaults`, and
//! `ParseResult`, which is the reference's own class (python/sage_flags/__init__.py). `parse` hands the core's field
//! values and the JSON line it wrote to the package's private `_from_core`, which sets the object's slots from
//! them (docs/IMPLEMENTATION.md D23).
#![forbid(unsafe_code)]

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyUnicodeEncodeError, PyUnicodeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyString, PyTuple};

use sage_flags_core as core;
use sage_flags_core::{Source, Vocabulary, MODE_COUNT, VALUE_COUNT};

/// The process's vocabulary: the one the package's `_vocab` chose at import (docs/SPEC.md B1-B2), set when this
/// module is initialised (a process has one, as the pure reference's module-level tables do).
static VOCABULARY: std::sync::OnceLock<&'static Vocabulary> = std::sync::OnceLock::new();

fn vocabulary() -> &'static Vocabulary {
    VOCABULARY.get().copied().unwrap_or(core::DEFAULT_VOCABULARY)
}

/// The mode keys as Python strings, made once.
fn mode_keys(py: Python<'_>) -> &[Py<PyString>] {
    static KEYS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();
    KEYS.get_or_init(py, || vocabulary().modes.iter().map(|(key, _)| PyString::intern(py, key).unbind()).collect())
}

fn optional_string<'py>(py: Python<'py>, text: Option<&str>) -> Bound<'py, PyAny> {
    text.map_or_else(|| py.None().into_bound(py), |text| PyString::new(py, text).into_any())
}

/// The ParseResult of the core's result: its fields in C16 order (`sage_flags.FIELDS`) and its JSON line.
fn result_object<'py>(py: Python<'py>, result: &core::ParseResult) -> PyResult<Bound<'py, PyAny>> {
    let mut fields = Vec::with_capacity(2 * MODE_COUNT + 2 + 2 * VALUE_COUNT);
    let (mode_count, value_count) = (result.vocabulary.modes.len(), result.vocabulary.value_modes.len());
    fields.extend(result.modes[..mode_count].iter().map(|on| PyBool::new(py, *on).to_owned().into_any()));
    fields.push(PyString::new(py, &result.goal).into_any());
    fields.push(optional_string(py, result.error.as_deref()));
    static SOURCES: PyOnceLock<[Py<PyAny>; 3]> = PyOnceLock::new();
    let sources = SOURCES.get_or_init(py, || {
        [Source::Unset, Source::Flag, Source::Config].map(|source| optional_string(py, source.as_str()).unbind())
    });
    fields.extend(result.sources[..mode_count].iter().map(|source| sources[*source as usize].bind(py).clone()));
    for (number, note) in result.numbers[..value_count].iter().zip(result.notes[..value_count].iter()) {
        fields.push(number.into_pyobject(py)?.into_any());
        fields.push(optional_string(py, note.as_deref()));
    }
    static FROM_CORE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let from_core = FROM_CORE.import(py, "sage_flags", "_from_core")?;
    from_core.call1((PyTuple::new(py, fields)?, result.to_json()))
}

/// The text of ``arguments`` (None is "", C10), or None for a lone surrogate (E4).
fn arguments_text<'a>(py: Python<'_>, arguments: Option<&'a Bound<'_, PyAny>>) -> PyResult<Option<Cow<'a, str>>> {
    let Some(arguments) = arguments else { return Ok(Some(Cow::Borrowed(""))) };
    let text = arguments.cast::<PyString>().map_err(|_| PyTypeError::new_err("arguments must be str or None"))?;
    match text.to_cow() {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.is_instance_of::<PyUnicodeEncodeError>(py) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Parse ARGUMENTS (C5-C10) and resolve each mode against ``defaults`` (C15).
#[pyfunction]
#[pyo3(signature = (arguments, defaults = None))]
fn parse<'py>(
    py: Python<'py>,
    arguments: Option<&Bound<'py, PyAny>>,
    defaults: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let Some(text) = arguments_text(py, arguments)? else {
        return result_object(py, &core::ParseResult::from_error_in(vocabulary(), core::E4.to_owned()));
    };
    // The reference reads the Mapping as `defaults and defaults.get(key)`, only for unflagged modes.
    let result = core::parse_with(vocabulary(), &text, |index| -> PyResult<bool> {
        let Some(defaults) = defaults else { return Ok(false) };
        if !defaults.is_truthy()? {
            return Ok(false);
        }
        let key = mode_keys(py)[index].bind(py);
        let value = match defaults.cast_exact::<PyDict>() {
            Ok(dict) => dict.get_item(key)?, // dict.get without the method lookup
            Err(_) => Some(defaults.call_method1(pyo3::intern!(py, "get"), (key,))?),
        };
        value.map_or(Ok(false), |value| value.is_truthy())
    })?;
    result_object(py, &result)
}

/// The config path as bytes, with os.fsencode's semantics, or None when it has none.
fn path_bytes<'py>(py: Python<'py>, path: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyBytes>>> {
    if let Ok(bytes) = path.cast_exact::<PyBytes>() {
        return Ok(Some(bytes.clone()));
    }
    static FSENCODE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    match FSENCODE.import(py, "os", "fsencode")?.call1((path,)) {
        Ok(encoded) => Ok(encoded.cast_into::<PyBytes>().ok()),
        Err(error) if error.is_instance_of::<PyTypeError>(py) || error.is_instance_of::<PyUnicodeError>(py) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Modes that ``path`` turns on by default, e.g. ``{"quality_locked": True}`` (C11-C14).
#[pyfunction]
fn load_defaults<'py>(py: Python<'py>, path: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    if let Some(path) = path.map(|path| path_bytes(py, path)).transpose()?.flatten() {
        for key in core::load_defaults_in(vocabulary(), path.as_bytes()).keys() {
            dict.set_item(key, true)?;
        }
    }
    Ok(dict)
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let result = module.py().import("sage_flags")?;
    let name: String = module.py().import("sage_flags._vocab")?.getattr("NAME")?.extract()?;
    let chosen = Vocabulary::named(name.as_bytes()).ok_or_else(|| {
        pyo3::exceptions::PyImportError::new_err(format!("the compiled core carries no vocabulary {name:?}"))
    })?;
    let _ = VOCABULARY.set(chosen);
    module.add("ParseResult", result.getattr("ParseResult")?)?;
    module.add_function(wrap_pyfunction!(parse, module)?)?;
    module.add_function(wrap_pyfunction!(load_defaults, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
