//! `sage_flags._native`: the PyO3 binding of sage-flags-core, conversions only; every rule lives in the core.
//! Its Python API is the pure reference's (python/sage_flags/reference.py): `parse`, `load_defaults`, and
//! `ParseResult`, which is the reference's own class (python/sage_flags/__init__.py). `parse` hands the core's field
//! values, the JSON line it wrote and the vocabulary's name to the package's private `_from_core`, which sets the
//! object's slots from them (docs/IMPLEMENTATION.md D23). The vocabulary is each call's argument (docs/SPEC.md
//! B1-B2): any of the core's, in any order, in one process.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use pyo3::exceptions::{PyTypeError, PyUnicodeEncodeError, PyUnicodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyString, PyTuple};

use sage_flags_core as core;
use sage_flags_core::{Source, Vocabulary, MODE_COUNT, VALUE_COUNT};

/// The vocabulary a call names (None: the default, B1); ValueError with B3's line for a name the core lacks.
fn vocabulary(name: Option<&str>) -> PyResult<&'static Vocabulary> {
    let Some(name) = name else { return Ok(core::DEFAULT_VOCABULARY) };
    Vocabulary::named(name.as_bytes()).ok_or_else(|| PyValueError::new_err(core::vocab::UNKNOWN_VOCABULARY))
}

/// Per vocabulary (in `VOCABULARIES` order): its name and its mode keys as Python strings, made once.
struct Names {
    name: Py<PyString>,
    keys: Vec<Py<PyString>>,
}

fn names<'a>(py: Python<'a>, vocab: &'static Vocabulary) -> &'a Names {
    static NAMES: PyOnceLock<Vec<Names>> = PyOnceLock::new();
    let all = NAMES.get_or_init(py, || {
        core::VOCABULARIES
            .iter()
            .map(|vocab| Names {
                name: PyString::intern(py, vocab.name).unbind(),
                keys: vocab.modes.iter().map(|(key, _)| PyString::intern(py, key).unbind()).collect(),
            })
            .collect()
    });
    let place = core::VOCABULARIES.iter().position(|each| std::ptr::eq(each, vocab)).unwrap_or(0);
    &all[place]
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
    let name = names(py, result.vocabulary).name.bind(py);
    from_core.call1((PyTuple::new(py, fields)?, result.to_json(), name))
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

/// Parse ARGUMENTS (C5-C10) in ``vocabulary`` (a name, B1; None is the default) and resolve each mode against
/// ``defaults`` (C15).
#[pyfunction]
#[pyo3(signature = (arguments, defaults = None, *, vocabulary = Some(core::DEFAULT_VOCABULARY.name)))]
fn parse<'py>(
    py: Python<'py>,
    arguments: Option<&Bound<'py, PyAny>>,
    defaults: Option<&Bound<'py, PyAny>>,
    vocabulary: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let vocab = self::vocabulary(vocabulary)?;
    let Some(text) = arguments_text(py, arguments)? else {
        return result_object(py, &core::ParseResult::from_error_in(vocab, core::E4.to_owned()));
    };
    // The reference reads the Mapping as `defaults and defaults.get(key)`, only for unflagged modes.
    let keys = &names(py, vocab).keys;
    let result = core::parse_with(vocab, &text, |index| -> PyResult<bool> {
        let Some(defaults) = defaults else { return Ok(false) };
        if !defaults.is_truthy()? {
            return Ok(false);
        }
        let key = keys[index].bind(py);
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

/// Modes of ``vocabulary`` (a name, B1; None is the default) that ``path`` turns on by default, e.g.
/// ``{"quality_locked": True}`` (C11-C14).
#[pyfunction]
#[pyo3(signature = (path, vocabulary = Some(core::DEFAULT_VOCABULARY.name)))]
fn load_defaults<'py>(
    py: Python<'py>,
    path: Option<&Bound<'py, PyAny>>,
    vocabulary: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    let vocab = self::vocabulary(vocabulary)?;
    let dict = PyDict::new(py);
    if let Some(path) = path.map(|path| path_bytes(py, path)).transpose()?.flatten() {
        for key in core::load_defaults_in(vocab, path.as_bytes()).keys() {
            dict.set_item(key, true)?;
        }
    }
    Ok(dict)
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let result = module.py().import("sage_flags")?;
    module.add("ParseResult", result.getattr("ParseResult")?)?;
    module.add_function(wrap_pyfunction!(parse, module)?)?;
    module.add_function(wrap_pyfunction!(load_defaults, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
