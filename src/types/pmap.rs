//! A persistent map: `insert` returns a new map sharing all but one path
//! with the old one, so scopes captured by closures and local functions cost
//! nothing to keep. An AVL tree, so lookups and inserts take logarithmic
//! time however long a chain of `let`s grows (a linked list of bindings made
//! programs of 100,000 `let`s quadratic).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::rc::Rc;

pub struct PMap<K, V>(Option<Rc<Node<K, V>>>);

struct Node<K, V> {
    key: K,
    value: V,
    left: PMap<K, V>,
    right: PMap<K, V>,
    height: u32,
}

impl<K, V> Clone for PMap<K, V> {
    fn clone(&self) -> Self {
        PMap(self.0.clone())
    }
}

impl<K, V> Default for PMap<K, V> {
    fn default() -> Self {
        PMap(None)
    }
}

impl<K: Ord + Clone, V: Clone> PMap<K, V> {
    pub fn new() -> Self {
        PMap(None)
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let mut node = self.0.as_deref();
        while let Some(n) = node {
            node = match key.cmp(n.key.borrow()) {
                Ordering::Less => n.left.0.as_deref(),
                Ordering::Greater => n.right.0.as_deref(),
                Ordering::Equal => return Some(&n.value),
            };
        }
        None
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.get(key).is_some()
    }

    /// The map with `key` bound to `value` (replacing an older binding).
    pub fn insert(&self, key: K, value: V) -> Self {
        match &self.0 {
            None => Self::node(key, value, PMap(None), PMap(None)),
            Some(n) => match key.cmp(&n.key) {
                Ordering::Less => Self::balance(
                    n.key.clone(),
                    n.value.clone(),
                    n.left.insert(key, value),
                    n.right.clone(),
                ),
                Ordering::Greater => Self::balance(
                    n.key.clone(),
                    n.value.clone(),
                    n.left.clone(),
                    n.right.insert(key, value),
                ),
                Ordering::Equal => Self::node(key, value, n.left.clone(), n.right.clone()),
            },
        }
    }

    /// Entries in key order.
    pub fn iter(&self) -> Iter<'_, K, V> {
        let mut it = Iter { stack: Vec::new() };
        it.push_left(self);
        it
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    fn height(&self) -> u32 {
        self.0.as_ref().map_or(0, |n| n.height)
    }

    fn node(key: K, value: V, left: Self, right: Self) -> Self {
        let height = left.height().max(right.height()) + 1;
        PMap(Some(Rc::new(Node {
            key,
            value,
            left,
            right,
            height,
        })))
    }

    /// A node over subtrees whose heights differ by at most two, rebalanced.
    fn balance(key: K, value: V, left: Self, right: Self) -> Self {
        let (hl, hr) = (left.height(), right.height());
        if hl > hr + 1 {
            let l = left.0.as_ref().expect("taller subtree is not empty");
            if l.left.height() >= l.right.height() {
                let new_right = Self::node(key, value, l.right.clone(), right);
                Self::node(l.key.clone(), l.value.clone(), l.left.clone(), new_right)
            } else {
                let lr = l.right.0.as_ref().expect("taller subtree is not empty");
                let new_left = Self::node(
                    l.key.clone(),
                    l.value.clone(),
                    l.left.clone(),
                    lr.left.clone(),
                );
                let new_right = Self::node(key, value, lr.right.clone(), right);
                Self::node(lr.key.clone(), lr.value.clone(), new_left, new_right)
            }
        } else if hr > hl + 1 {
            let r = right.0.as_ref().expect("taller subtree is not empty");
            if r.right.height() >= r.left.height() {
                let new_left = Self::node(key, value, left, r.left.clone());
                Self::node(r.key.clone(), r.value.clone(), new_left, r.right.clone())
            } else {
                let rl = r.left.0.as_ref().expect("taller subtree is not empty");
                let new_left = Self::node(key, value, left, rl.left.clone());
                let new_right = Self::node(
                    r.key.clone(),
                    r.value.clone(),
                    rl.right.clone(),
                    r.right.clone(),
                );
                Self::node(rl.key.clone(), rl.value.clone(), new_left, new_right)
            }
        } else {
            Self::node(key, value, left, right)
        }
    }
}

pub struct Iter<'m, K, V> {
    stack: Vec<&'m Node<K, V>>,
}

impl<'m, K, V> Iter<'m, K, V> {
    fn push_left(&mut self, mut map: &'m PMap<K, V>) {
        while let Some(n) = map.0.as_deref() {
            self.stack.push(n);
            map = &n.left;
        }
    }
}

impl<'m, K, V> Iterator for Iter<'m, K, V> {
    type Item = (&'m K, &'m V);

    fn next(&mut self) -> Option<Self::Item> {
        let n = self.stack.pop()?;
        self.push_left(&n.right);
        Some((&n.key, &n.value))
    }
}

#[cfg(test)]
mod tests {
    use super::PMap;

    #[test]
    fn inserts_are_persistent_and_ordered() {
        let mut maps = vec![PMap::new()];
        for i in 0..1000u32 {
            // A scrambled order exercises every rotation.
            let k = (i * 7919) % 1000;
            let next = maps.last().unwrap().insert(k, i);
            maps.push(next);
        }
        let full = maps.last().unwrap();
        let keys: Vec<u32> = full.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, (0..1000).collect::<Vec<_>>());
        // Older versions are unchanged.
        assert_eq!(maps[10].iter().count(), 10);
        assert_eq!(maps[10].get(&((3 * 7919) % 1000)), Some(&3));
        assert_eq!(maps[10].get(&((500 * 7919) % 1000)), None);
        // Replacing keeps one entry per key.
        let replaced = full.insert(5, 42);
        assert_eq!(replaced.get(&5), Some(&42));
        assert_eq!(replaced.iter().count(), 1000);
        assert!(full.height() <= 15, "height {}", full.height());
    }

    #[test]
    fn ascending_inserts_stay_balanced() {
        let mut m = PMap::new();
        for i in 0..100_000u32 {
            m = m.insert(i, ());
        }
        assert!(m.height() <= 25, "height {}", m.height());
        assert!(m.contains_key(&99_999));
    }
}
