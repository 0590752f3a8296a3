//! Handles under the names of std's Unix descriptors: [`OwnedFd`] closes on drop, [`BorrowedFd`]
//! borrows, and [`AsFd`] lends one, as `std::os::fd` does on Unix.

use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle, RawHandle};
use std::sync::Arc;

/// An owned handle, closed on drop.
#[derive(Debug)]
pub struct OwnedFd(OwnedHandle);

impl OwnedFd {
    /// Takes ownership of a handle an NT call returned.
    ///
    /// # Safety
    /// `raw` is an open handle that nothing else closes.
    pub(crate) unsafe fn from_raw(raw: RawHandle) -> OwnedFd {
        // SAFETY: as the caller promises.
        OwnedFd(unsafe { OwnedHandle::from_raw_handle(raw) })
    }
}

/// A borrowed handle; the null handle stands for the working directory ([`super::fs::CWD`]).
#[derive(Debug, Clone, Copy)]
pub struct BorrowedFd<'a> {
    raw: RawHandle,
    _owner: std::marker::PhantomData<&'a OwnedFd>,
}

// SAFETY: a handle is a process-wide value; the borrow only ties its lifetime to its owner.
unsafe impl Send for BorrowedFd<'_> {}
// SAFETY: as above.
unsafe impl Sync for BorrowedFd<'_> {}

impl BorrowedFd<'_> {
    /// The raw handle, for an NT call.
    pub(crate) fn raw(&self) -> RawHandle {
        self.raw
    }

    /// The working directory's stand-in: paths given with it are absolute.
    pub(crate) const fn cwd() -> BorrowedFd<'static> {
        BorrowedFd {
            raw: std::ptr::null_mut(),
            _owner: std::marker::PhantomData,
        }
    }

    /// Whether this is [`BorrowedFd::cwd`].
    pub(crate) fn is_cwd(&self) -> bool {
        self.raw.is_null()
    }
}

/// Lends a handle.
pub trait AsFd {
    /// The handle, borrowed.
    fn as_fd(&self) -> BorrowedFd<'_>;
}

impl AsFd for OwnedFd {
    fn as_fd(&self) -> BorrowedFd<'_> {
        BorrowedFd {
            raw: self.0.as_raw_handle(),
            _owner: std::marker::PhantomData,
        }
    }
}

impl AsFd for BorrowedFd<'_> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        *self
    }
}

impl<T: AsFd + ?Sized> AsFd for &T {
    fn as_fd(&self) -> BorrowedFd<'_> {
        (**self).as_fd()
    }
}

impl<T: AsFd + ?Sized> AsFd for &mut T {
    fn as_fd(&self) -> BorrowedFd<'_> {
        (**self).as_fd()
    }
}

impl<T: AsFd + ?Sized> AsFd for Arc<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        (**self).as_fd()
    }
}

impl<T: AsFd + ?Sized> AsFd for Box<T> {
    fn as_fd(&self) -> BorrowedFd<'_> {
        (**self).as_fd()
    }
}
