//! No watcher: the systems without inotify. [`Watcher::new`] declines, so a root remembers no
//! walk and every answer comes from a fresh read of the tree. kqueue would need a descriptor
//! per watched file and FSEvents reports late and coalesced; neither is relied on yet.

use crate::sys::fd::AsFd;

/// Never made on this system: see the module doc.
#[derive(Debug)]
pub struct Watcher(());

impl Watcher {
    /// Always `None`: walks are not remembered here.
    pub fn new() -> Option<Watcher> {
        None
    }

    /// No adder without a watcher.
    pub fn adder(&self) -> Option<Adder> {
        None
    }

    /// Nothing is recorded: changes would go unseen.
    pub fn record(&mut self, _wd: Option<i32>) -> bool {
        false
    }

    /// Always `true`: with nothing watched, anything may have changed.
    pub fn changed(&mut self) -> bool {
        true
    }
}

/// Never made on this system: see the module doc.
#[derive(Debug)]
pub struct Adder(());

impl Adder {
    /// Nothing is watched.
    pub fn watch_directory(&self, _dir: impl AsFd) -> Option<i32> {
        None
    }

    /// Nothing is watched.
    pub fn watch_entry(&self, _dir: impl AsFd, _name: &str) -> Option<i32> {
        None
    }
}
