//! The lock that lets one run at a time write into a run folder (`<out>/.pagesnap.lock`).
//!
//! Two runs into one `--out` (say two `--resume`s started by hand) would both
//! skip the same finished steps and append the same missing ones. The lock is
//! an advisory `flock` on a file inside the folder ([`File::try_lock`]): it is
//! held for as long as the [`OutLock`] lives and released by the kernel when
//! the process ends, however it ends, so a killed run never leaves the folder
//! locked. The file itself stays behind; deleting it on exit would let a third
//! run lock a fresh file while the second still holds the old one.

use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// File name of the lock inside a run folder.
pub const FILE: &str = ".pagesnap.lock";

/// A held lock on a run folder; dropping it releases the lock.
#[derive(Debug)]
pub struct OutLock {
    _file: File,
    path: PathBuf,
}

impl OutLock {
    /// Creates `dir` if needed and locks it, or fails at once, naming the
    /// folder, when another process holds the lock.
    pub fn acquire(dir: &Path) -> Result<OutLock> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("could not create {}", dir.display()))?;
        let path = dir.join(FILE);
        let file = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .with_context(|| format!("could not open {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => Ok(OutLock { _file: file, path }),
            Err(TryLockError::WouldBlock) => bail!(
                "{} is in use: another pagesnap run is writing into it (it holds {}); \
                 wait for that run to end, or choose another --out",
                dir.display(),
                path.display()
            ),
            Err(TryLockError::Error(err)) => {
                Err(err).with_context(|| format!("could not lock {}", path.display()))
            }
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 17: two runs into one folder both proceeded.
    #[test]
    fn a_second_lock_on_a_folder_fails_naming_it_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("run");
        let first = OutLock::acquire(&out).unwrap();
        assert_eq!(first.path(), out.join(FILE));
        let err = format!("{:#}", OutLock::acquire(&out).unwrap_err());
        assert!(
            err.starts_with(&format!("{} is in use", out.display())),
            "{err}"
        );
        drop(first);
        assert!(OutLock::acquire(&out).is_ok());
    }
}
