//! Plumbing every command shares, and nothing else: the exit statuses (C19, D19, H9), the one
//! bounded read and the one "write it or say so" helper. A leaf: it imports nothing of the crate,
//! so any command (and the hook in the executable's crate) takes it without taking a dispatcher.

use std::io::{self, Read, Write};

/// C19: exit statuses.
pub const OK: i32 = 0;
/// At least one ARGUMENTS was an error (E1-E4); the JSON is still printed.
pub const PARSE_ERROR: i32 = 1;
/// A command line the command refuses (C3): nothing on stdout.
pub const USAGE_ERROR: i32 = 2;
/// D19 and K8: this layer cannot run the command, or the hook fails open.
pub const UNAVAILABLE: i32 = 3;
/// stdout is closed, full or a broken pipe (H9): [`WRITE_FAILED_MESSAGE`] on stderr.
pub const WRITE_FAILED: i32 = 4;
/// H9: the one stderr line of every layer when the output could not be written.
pub const WRITE_FAILED_MESSAGE: &str =
    "sage-flags: cannot write the output to stdout (closed, full or a broken pipe)\n";

/// At most `limit + 1` bytes of `reader`: one byte past the bound tells "over it" without reading
/// more (I4, K2, H1). An interrupted read is retried; any other error is returned.
pub fn read_bounded(reader: &mut dyn Read, limit: usize) -> io::Result<Vec<u8>> {
    let mut data = Vec::new();
    let mut limited = reader.take(limit as u64 + 1);
    loop {
        match limited.read_to_end(&mut data) {
            Ok(_) => return Ok(data),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        }
    }
}

/// H9: `data` written and flushed, [`OK`]; else [`WRITE_FAILED_MESSAGE`] on stderr and [`WRITE_FAILED`].
pub fn write_out(stdout: &mut dyn Write, stderr: &mut dyn Write, data: &[u8]) -> i32 {
    match stdout.write_all(data).and_then(|()| stdout.flush()) {
        Ok(()) => OK,
        Err(_) => {
            let _ = stderr.write_all(WRITE_FAILED_MESSAGE.as_bytes()); // nothing more to do if stderr is gone
            WRITE_FAILED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_one_byte_past_the_bound_and_no_more() {
        let input = [7u8; 10];
        assert_eq!(read_bounded(&mut &input[..], 20).unwrap().len(), 10);
        assert_eq!(read_bounded(&mut &input[..], 10).unwrap().len(), 10);
        assert_eq!(read_bounded(&mut &input[..], 4).unwrap().len(), 5);
    }

    #[test]
    fn a_failed_write_is_status_4_and_one_line() {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        assert_eq!(write_out(&mut stdout, &mut stderr, b"x\n"), OK);
        assert_eq!((stdout.as_slice(), stderr.is_empty()), (&b"x\n"[..], true));
        let mut full = [0u8; 1];
        assert_eq!(write_out(&mut &mut full[..], &mut stderr, b"xy"), WRITE_FAILED);
        assert_eq!(stderr, WRITE_FAILED_MESSAGE.as_bytes());
    }
}
