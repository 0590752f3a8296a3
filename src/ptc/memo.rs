//! What a page derives from a walk (its cursor state, the paths that match), kept for as long
//! as the walk itself is reused.
//!
//! The root hands out the same `Arc` for a walk until something under it changes (see
//! `root::remember`), so the `Arc`'s address names one exact walk. A [`Memo`] keeps, per walk
//! and per scope, what was derived from it; the slot pins the walk, so the address cannot be
//! reused by another walk while the slot exists. A re-walk yields a new `Arc` and so a miss.

use std::any::Any;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// Walks (with their scopes) remembered per memo.
const SLOTS: usize = 8;

struct Slot<V> {
    walk: Arc<dyn Any + Send + Sync>,
    scope: String,
    value: V,
}

/// Values derived from walks, newest last.
pub struct Memo<V> {
    slots: Mutex<VecDeque<Slot<V>>>,
}

impl<V> Default for Memo<V> {
    fn default() -> Self {
        Memo {
            slots: Mutex::new(VecDeque::new()),
        }
    }
}

impl<V> std::fmt::Debug for Memo<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Memo").finish_non_exhaustive()
    }
}

impl<V: Clone> Memo<V> {
    /// The value derived from `walk` for `scope`, computed by `derive` on a miss.
    pub fn get_or<W, E>(
        &self,
        walk: &Arc<W>,
        scope: &str,
        derive: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E>
    where
        W: Any + Send + Sync,
    {
        let address = Arc::as_ptr(walk).cast::<()>();
        let same = |slot: &Slot<V>| {
            std::ptr::eq(Arc::as_ptr(&slot.walk).cast::<()>(), address) && slot.scope == scope
        };
        if let Some(slot) = self.lock().iter().find(|s| same(s)) {
            return Ok(slot.value.clone());
        }
        // Derived outside the lock: a slow derivation does not hold up other scopes.
        let value = derive()?;
        let mut slots = self.lock();
        slots.retain(|s| !same(s));
        if slots.len() >= SLOTS {
            slots.pop_front();
        }
        slots.push_back(Slot {
            walk: walk.clone(),
            scope: scope.to_owned(),
            value: value.clone(),
        });
        Ok(value)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Slot<V>>> {
        self.slots
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_derived_once_per_walk_and_scope() {
        let memo: Memo<usize> = Memo::default();
        let walk = Arc::new(vec![1, 2, 3]);
        let mut derived = 0;
        let mut get = |walk: &Arc<Vec<i32>>, scope: &str| {
            memo.get_or(walk, scope, || {
                derived += 1;
                Ok::<_, ()>(walk.len())
            })
            .unwrap()
        };
        assert_eq!(get(&walk, "a"), 3);
        assert_eq!(get(&walk, "a"), 3);
        assert_eq!(get(&walk, "b"), 3);
        // An equal walk in another allocation is another walk.
        let again = Arc::new(vec![1, 2, 3]);
        assert_eq!(get(&again, "a"), 3);
        assert_eq!(derived, 3);
    }

    #[test]
    fn slots_are_bounded() {
        let memo: Memo<u8> = Memo::default();
        let walks: Vec<Arc<u8>> = (0..20).map(Arc::new).collect();
        for walk in &walks {
            memo.get_or(walk, "", || Ok::<_, ()>(**walk)).unwrap();
        }
        assert_eq!(memo.lock().len(), SLOTS);
    }
}
