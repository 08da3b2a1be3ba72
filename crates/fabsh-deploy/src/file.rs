//! Reading one file a person named, within a size cap: a regular file only (a character
//! device such as `/dev/zero`, a FIFO or a socket would read without end or block), and never
//! more than the cap, even if the file grows while it is read. The repository reader and the
//! client's file flags (`@FILE`, `--file`, `--questions`, ...) share it.

use std::io::Read;
use std::path::Path;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file system refused (missing, no permission, ...).
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not a regular file.
    #[error("not a regular file (a {0}); only regular files are read")]
    NotRegular(&'static str),
    /// Larger than the cap.
    #[error("{size} bytes is more than the {} this accepts", human_size(*cap))]
    TooLarge { size: u64, cap: u64 },
}

/// What kind of file `meta` describes, for messages.
pub fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        return "regular file";
    }
    if t.is_dir() {
        return "folder";
    }
    if t.is_symlink() {
        return "symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "character device";
        }
        if t.is_block_device() {
            return "block device";
        }
        if t.is_fifo() {
            return "named pipe";
        }
        if t.is_socket() {
            return "socket";
        }
    }
    "special file"
}

/// The bytes of the regular file at `path` (links followed), at most `cap` of them.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    // Checked before opening: opening a FIFO blocks until something writes to it.
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind_of(&meta)));
    }
    let file = std::fs::File::open(path)?;
    // Checked again on the open file: the path may have been replaced in between.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(FileError::NotRegular(kind_of(&meta)));
    }
    if meta.len() > cap {
        return Err(FileError::TooLarge {
            size: meta.len(),
            cap,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // One byte past the cap tells a file that grew after it was measured.
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge {
            size: bytes.len() as u64,
            cap,
        });
    }
    Ok(bytes)
}

/// `128 MiB`, `64 KiB`, `512 bytes`: a cap as a person reads it.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, size) in UNITS {
        if bytes >= size && bytes.is_multiple_of(size) {
            return format!("{} {unit}", bytes / size);
        }
    }
    format!("{bytes} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("f.txt");
        std::fs::write(&path, b"12345").expect("write");
        assert_eq!(read_regular(&path, 5).expect("fits"), b"12345");
        assert!(matches!(
            read_regular(&path, 4),
            Err(FileError::TooLarge { size: 5, cap: 4 })
        ));
        assert!(matches!(
            read_regular(Path::new("/dev/zero"), 1 << 20),
            Err(FileError::NotRegular("character device"))
        ));
        assert!(matches!(
            read_regular(dir.path(), 1 << 20),
            Err(FileError::NotRegular("folder"))
        ));
        assert!(matches!(
            read_regular(&dir.path().join("missing"), 1),
            Err(FileError::Io(_))
        ));
        assert_eq!(human_size(128 << 20), "128 MiB");
        assert_eq!(human_size(1000), "1000 bytes");
    }
}
