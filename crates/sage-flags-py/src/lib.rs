//! `sage_flags._native`: the PyO3 binding of sage-flags-core. Conversions only;
//! every rule lives in the core. Its Python API is the pure reference's
//! (python/sage_flags/reference.py): `parse`, `load_defaults`, `ParseResult`.
#![forbid(unsafe_code)]

use pyo3::exceptions::{PyAttributeError, PyTypeError, PyUnicodeEncodeError, PyUnicodeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyString, PyTuple};

use sage_flags_core as core;
use sage_flags_core::{Defaults, Source, MODES, MODE_COUNT, VALUE_COUNT, VALUE_MODES};

/// The mode keys as Python strings, made once.
fn mode_keys(py: Python<'_>) -> &[Py<PyString>] {
    static KEYS: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();
    KEYS.get_or_init(py, || MODES.iter().map(|(key, _)| PyString::intern(py, key).unbind()).collect())
}

/// The field names in C16 order: the modes, goal, error, the sources, then each number and note (V7).
fn field_names(py: Python<'_>) -> &[Py<PyString>] {
    static NAMES: PyOnceLock<Vec<Py<PyString>>> = PyOnceLock::new();
    NAMES.get_or_init(py, || {
        let modes = MODES.iter().map(|(key, _)| (*key).to_owned());
        let sources = MODES.iter().map(|(key, _)| format!("{key}_source"));
        let values = VALUE_MODES.iter().flat_map(|spec| [spec.field.to_owned(), spec.note_field.to_owned()]);
        modes
            .chain(["goal".to_owned(), "error".to_owned()])
            .chain(sources)
            .chain(values)
            .map(|name| PyString::intern(py, &name).unbind())
            .collect()
    })
}

/// The outcome of one parse: modes, their sources, the goal, or an error.
///
/// Immutable; equal to any result (either backend) with the same ``to_dict()``.
#[pyclass(frozen, module = "sage_flags._native", name = "ParseResult")]
struct ParseResult {
    inner: core::ParseResult,
}

fn source_object(py: Python<'_>, source: Source) -> Py<PyAny> {
    match source.as_str() {
        Some(text) => PyString::intern(py, text).into_any().unbind(),
        None => py.None(),
    }
}

fn source_from_object(value: Option<Bound<'_, PyAny>>) -> PyResult<Source> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(Source::Unset);
    };
    match value.extract::<String>()?.as_str() {
        "flag" => Ok(Source::Flag),
        "config" => Ok(Source::Config),
        other => Err(PyValueError::new_err(format!("a source is None, 'flag' or 'config', not {other:?}"))),
    }
}

impl ParseResult {
    /// The fields as Python objects, in C16 order.
    fn values(&self, py: Python<'_>) -> Vec<Py<PyAny>> {
        let inner = &self.inner;
        let mut values = Vec::with_capacity(2 * MODE_COUNT + 2 + 2 * VALUE_COUNT);
        values.extend(inner.modes.iter().map(|on| PyBool_new(py, *on)));
        values.push(PyString::new(py, &inner.goal).into_any().unbind());
        values.push(optional_string(py, inner.error.as_deref()));
        values.extend(inner.sources.iter().map(|source| source_object(py, *source)));
        for (number, note) in inner.numbers.iter().zip(inner.notes.iter()) {
            values.push(number.into_pyobject(py).map_or_else(|_| py.None(), |n| n.into_any().unbind()));
            values.push(optional_string(py, note.as_deref()));
        }
        values
    }

    fn items<'py>(&self, py: Python<'py>) -> impl Iterator<Item = (Bound<'py, PyString>, Bound<'py, PyAny>)> {
        let names = field_names(py).iter().map(move |name| name.bind(py).clone());
        names.zip(self.values(py).into_iter().map(move |value| value.into_bound(py)))
    }
}

fn optional_string(py: Python<'_>, text: Option<&str>) -> Py<PyAny> {
    match text {
        Some(text) => PyString::new(py, text).into_any().unbind(),
        None => py.None(),
    }
}

#[allow(non_snake_case)]
fn PyBool_new(py: Python<'_>, value: bool) -> Py<PyAny> {
    pyo3::types::PyBool::new(py, value).to_owned().into_any().unbind()
}

#[pymethods]
impl ParseResult {
    /// Same signature as the reference: ``ParseResult(modes, sources, goal="", error=None, values=None)``.
    #[new]
    #[pyo3(signature = (modes, sources, goal = String::new(), error = None, values = None))]
    fn new(
        py: Python<'_>,
        modes: &Bound<'_, PyAny>,
        sources: &Bound<'_, PyAny>,
        goal: String,
        error: Option<String>,
        values: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut inner = core::ParseResult { goal, error, ..core::ParseResult::empty() };
        let get = pyo3::intern!(py, "get");
        for (index, key) in mode_keys(py).iter().enumerate() {
            inner.modes[index] = modes.call_method1(get, (key, false))?.is_truthy()?;
            inner.sources[index] = source_from_object(Some(sources.call_method1(get, (key,))?))?;
        }
        if let Some(values) = values.filter(|v| !v.is_none()) {
            for (index, spec) in VALUE_MODES.iter().enumerate() {
                let number = values.call_method1(get, (spec.field,))?;
                inner.numbers[index] = if number.is_none() { 0 } else { number.extract()? };
                inner.notes[index] = values.call_method1(get, (spec.note_field,))?.extract()?;
            }
        }
        Ok(ParseResult { inner })
    }

    #[getter]
    fn goal(&self) -> &str {
        &self.inner.goal
    }

    #[getter]
    fn error(&self) -> Option<&str> {
        self.inner.error.as_deref()
    }

    #[getter]
    fn ok(&self) -> bool {
        self.inner.is_ok()
    }

    /// The mode fields (``quality_locked``, ``autonomous_source``, ...): their
    /// names come from the vocabulary, so they are looked up, not listed.
    fn __getattr__(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        if let Some(on) = self.inner.mode(name) {
            return Ok(PyBool_new(py, on));
        }
        if let Some(source) = name.strip_suffix("_source").and_then(|key| self.inner.source(key)) {
            return Ok(source_object(py, source));
        }
        if let Some(number) = self.inner.number(name) {
            return Ok(number.into_pyobject(py)?.into_any().unbind());
        }
        if let Some(note) = self.inner.note(name) {
            return Ok(optional_string(py, note));
        }
        Err(PyAttributeError::new_err(name.to_owned()))
    }

    fn __setattr__(&self, _name: &Bound<'_, PyAny>, _value: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyAttributeError::new_err("ParseResult is immutable"))
    }

    fn __delattr__(&self, _name: &Bound<'_, PyAny>) -> PyResult<()> {
        Err(PyAttributeError::new_err("ParseResult is immutable"))
    }

    /// The fields, keys in C16 order.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (name, value) in self.items(py) {
            dict.set_item(name, value)?;
        }
        Ok(dict)
    }

    /// The exact C16/C17 line, without the trailing newline.
    fn to_json(&self) -> String {
        self.inner.to_json()
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        if let Ok(native) = other.cast::<ParseResult>() {
            return Ok(PyBool_new(py, self.inner == native.get().inner));
        }
        // Any other result (the reference's) compares by its to_dict(), as the reference does.
        let Ok(to_dict) = other.getattr(pyo3::intern!(py, "to_dict")) else {
            return Ok(py.NotImplemented());
        };
        let equal = self.to_dict(py)?.eq(to_dict.call0()?)?;
        Ok(PyBool_new(py, equal))
    }

    /// The reference's hash (of its field tuple), so equal results of both backends hash alike.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        let pairs =
            self.items(py).map(|pair| PyTuple::new(py, [pair.0.into_any(), pair.1])).collect::<PyResult<Vec<_>>>()?;
        PyTuple::new(py, pairs)?.hash()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::with_capacity(2 * MODE_COUNT + 2 + 2 * VALUE_COUNT);
        for (name, value) in self.items(py) {
            parts.push(format!("{}={}", name.to_cow()?, value.repr()?.to_cow()?));
        }
        Ok(format!("ParseResult({})", parts.join(", ")))
    }
}

/// The text of ``arguments`` (None is "", C10), or None for a lone surrogate (E4).
fn arguments_text<'a>(py: Python<'_>, arguments: &'a Bound<'_, PyAny>) -> PyResult<Option<std::borrow::Cow<'a, str>>> {
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
fn parse(
    py: Python<'_>,
    arguments: Option<&Bound<'_, PyAny>>,
    defaults: Option<&Bound<'_, PyAny>>,
) -> PyResult<ParseResult> {
    let text = match arguments {
        None => Some(std::borrow::Cow::Borrowed("")),
        Some(arguments) => arguments_text(py, arguments)?,
    };
    let Some(text) = text else {
        return Ok(ParseResult { inner: core::ParseResult::from_error(core::E4.to_owned()) });
    };
    // The reference reads the Mapping as `defaults and defaults.get(key)`, only for unflagged modes.
    let mut has_defaults: Option<bool> = None;
    let inner = core::parse_with(&text, |index| -> PyResult<bool> {
        let Some(defaults) = defaults else {
            return Ok(false);
        };
        let truthy = match has_defaults {
            Some(truthy) => truthy,
            None => *has_defaults.insert(defaults.is_truthy()?),
        };
        if !truthy {
            return Ok(false);
        }
        let key = mode_keys(py)[index].bind(py);
        let value = match defaults.cast_exact::<PyDict>() {
            Ok(dict) => dict.get_item(key)?, // dict.get without the method lookup
            Err(_) => Some(defaults.call_method1(pyo3::intern!(py, "get"), (key,))?),
        };
        value.map_or(Ok(false), |value| value.is_truthy())
    })?;
    Ok(ParseResult { inner })
}

/// The config path as bytes, with os.fsencode's semantics, or None when it has none.
fn path_bytes<'py>(py: Python<'py>, path: &Bound<'py, PyAny>) -> PyResult<Option<Bound<'py, PyBytes>>> {
    if let Ok(bytes) = path.cast_exact::<PyBytes>() {
        return Ok(Some(bytes.clone()));
    }
    static FSENCODE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let fsencode = FSENCODE.import(py, "os", "fsencode")?;
    match fsencode.call1((path,)) {
        Ok(encoded) => Ok(encoded.cast_into::<PyBytes>().ok()),
        Err(error) if error.is_instance_of::<PyTypeError>(py) || error.is_instance_of::<PyUnicodeError>(py) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Modes that ``path`` turns on by default, e.g. ``{"quality_locked": True}`` (C11-C14).
#[pyfunction]
fn load_defaults<'py>(py: Python<'py>, path: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    let Some(path) = path else { return Ok(dict) };
    let Some(path) = path_bytes(py, path)? else {
        return Ok(dict);
    };
    let defaults: Defaults = core::load_defaults(path.as_bytes());
    for (index, key) in mode_keys(py).iter().enumerate() {
        if defaults.is_on(index) {
            dict.set_item(key.bind(py), true)?;
        }
    }
    Ok(dict)
}

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ParseResult>()?;
    module.add_function(wrap_pyfunction!(parse, module)?)?;
    module.add_function(wrap_pyfunction!(load_defaults, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
