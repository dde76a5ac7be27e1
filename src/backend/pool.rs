//! The device backends' buffer table: live buffers by id (ids reused), and idle
//! buffers kept by size class for reuse. One policy for every device backend: size
//! classes of 1/8 of a power of two (waste <= 12.5%, high reuse), and idle buffers
//! kept up to the peak working set (at least 4 GiB), so a workload that repeats (the
//! same field size) allocates nothing after its first call.

use crate::error::{Error, Result};
use crate::recording::BufId;

/// The capacity a request of `bytes` is allocated with.
pub(crate) fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(16);
    let step = (bytes.next_power_of_two() / 8).max(256);
    bytes.next_multiple_of(step)
}

/// Idle bytes kept at least, whatever the peak.
const MIN_IDLE_BUDGET: u64 = 4 << 30;

pub(crate) struct BufferTable<B> {
    bufs: Vec<Option<(B, u64)>>,
    free_ids: Vec<u32>,
    pool: Vec<(u64, B)>,
    pool_bytes: u64,
    /// Bytes of pool-class buffers that exist (handed out or idle in the pool).
    pub live_bytes: u64,
    /// Most bytes ever live at once (pooled and in use): the pool keeps up to this much
    /// idle.
    peak_bytes: u64,
    /// False (`FZWGPU_POOL=off`): released buffers are destroyed at once, never reused.
    keep_idle: bool,
}

impl<B> Default for BufferTable<B> {
    fn default() -> Self {
        BufferTable {
            bufs: Vec::new(),
            free_ids: Vec::new(),
            pool: Vec::new(),
            pool_bytes: 0,
            live_bytes: 0,
            peak_bytes: 0,
            keep_idle: true,
        }
    }
}

/// `FZWGPU_POOL`: `on` (the default) keeps released buffers for reuse, `off` destroys
/// them at once (a diagnostic: every call then allocates afresh). Other values are a
/// configuration error.
pub(crate) fn pool_from_env() -> Result<bool> {
    Ok(crate::envcfg::switch("FZWGPU_POOL")?.unwrap_or(true))
}

impl<B> BufferTable<B> {
    /// An empty table; `keep_idle` false destroys released buffers instead of pooling.
    pub fn new(keep_idle: bool) -> Self {
        BufferTable { keep_idle, ..Default::default() }
    }

    /// An idle buffer of capacity `cap`, out of the pool.
    pub fn take_idle(&mut self, cap: u64) -> Option<B> {
        let i = self.pool.iter().position(|(c, _)| *c == cap)?;
        self.pool_bytes -= cap;
        Some(self.pool.swap_remove(i).1)
    }

    /// Any idle buffer (to destroy), with its capacity.
    pub fn pop_idle(&mut self) -> Option<(u64, B)> {
        let (c, b) = self.pool.pop()?;
        self.pool_bytes -= c;
        self.live_bytes -= c;
        Some((c, b))
    }

    /// Every idle buffer (to destroy), and the bytes they hold.
    pub fn drain_idle(&mut self) -> (Vec<B>, u64) {
        let freed = self.pool_bytes;
        self.pool_bytes = 0;
        self.live_bytes -= freed;
        (self.pool.drain(..).map(|(_, b)| b).collect(), freed)
    }

    /// Count a newly allocated buffer of capacity `cap`.
    pub fn allocated(&mut self, cap: u64) {
        self.live_bytes += cap;
        self.peak_bytes = self.peak_bytes.max(self.live_bytes);
    }

    /// Hand out `b` (of `size` bytes) under a new id.
    pub fn insert(&mut self, b: B, size: u64) -> BufId {
        match self.free_ids.pop() {
            Some(id) => {
                self.bufs[id as usize] = Some((b, size));
                BufId(id)
            }
            None => {
                self.bufs.push(Some((b, size)));
                BufId((self.bufs.len() - 1) as u32)
            }
        }
    }

    /// Take a live buffer out of the table (its id becomes free).
    pub fn remove(&mut self, id: BufId) -> Option<(B, u64)> {
        let e = self.bufs.get_mut(id.0 as usize).and_then(Option::take)?;
        self.free_ids.push(id.0);
        Some(e)
    }

    /// Keep a released pool-class buffer idle, or give it back (`Some`) to be
    /// destroyed when the idle budget is full.
    pub fn release(&mut self, b: B, cap: u64) -> Option<B> {
        if self.keep_idle && self.pool_bytes + cap <= self.peak_bytes.max(MIN_IDLE_BUDGET) {
            self.pool_bytes += cap;
            self.pool.push((cap, b));
            None
        } else {
            self.live_bytes -= cap;
            Some(b)
        }
    }

    /// A live buffer and its size.
    pub fn get(&self, id: BufId) -> Result<&(B, u64)> {
        self.bufs.get(id.0 as usize).and_then(|b| b.as_ref()).ok_or_else(|| Error::Device(format!("buffer {} is not live", id.0)))
    }

    /// Ids handed out and not released.
    pub fn live_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.bufs.iter().enumerate().filter(|(_, b)| b.is_some()).map(|(i, _)| i as u32)
    }

    /// Every buffer the table holds, live and idle (for teardown).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    pub fn drain_all(&mut self) -> Vec<B> {
        let mut out: Vec<B> = self.bufs.drain(..).flatten().map(|(b, _)| b).collect();
        out.extend(self.pool.drain(..).map(|(_, b)| b));
        self.free_ids.clear();
        self.pool_bytes = 0;
        self.live_bytes = 0;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_reused_and_idle_buffers_pooled_by_class() {
        assert_eq!(size_class(1), 256);
        assert_eq!(size_class(1000), 1024);
        assert_eq!(size_class((1 << 30) + 1), (1 << 30) + (1 << 28));
        let mut t = BufferTable::<&str>::default();
        t.allocated(256);
        let a = t.insert("a", 256);
        let b = t.insert("b", 100);
        assert_eq!(t.get(a).unwrap(), &("a", 256));
        let (x, cap) = t.remove(a).unwrap();
        assert!(t.get(a).is_err());
        assert_eq!(t.release(x, cap), None);
        assert_eq!(t.take_idle(512), None);
        assert_eq!(t.take_idle(256), Some("a"));
        assert_eq!(t.insert("c", 1), a, "the freed id is reused");
        assert_eq!(t.live_ids().collect::<Vec<_>>(), vec![a.0, b.0]);
    }

    #[test]
    fn a_table_without_pool_gives_every_released_buffer_back() {
        let mut t = BufferTable::<&str>::new(false);
        t.allocated(256);
        let a = t.insert("a", 256);
        let (x, cap) = t.remove(a).unwrap();
        assert_eq!(t.release(x, cap), Some("a"));
        assert_eq!(t.live_bytes, 0);
        assert_eq!(t.take_idle(256), None);
    }
}
