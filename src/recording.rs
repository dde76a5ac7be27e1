//! The backend-neutral command list that stages record: kernel dispatches addressed by
//! [`Kernel`] with their params and buffer bindings, buffer clears and copies, and
//! readbacks resolved after the one submission. Stages import this module, never a
//! backend.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::kernels::Kernel;

/// A device buffer handle, owned by a backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufId(pub u32);

/// A byte window of a buffer (offset and size multiples of 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufSlice {
    pub buf: BufId,
    pub offset: u64,
    pub size: u64,
}

impl BufSlice {
    pub fn new(buf: BufId, offset: u64, size: u64) -> Self {
        BufSlice { buf, offset, size }
    }

    /// The same window for an `array<vec4<u32>>` binding: its whole 16-byte groups, at
    /// least one. Every buffer is allocated in multiples of 256 bytes and bound at
    /// 256-byte-aligned offsets, so the window stays inside its buffer; kernels read
    /// through it only the groups that lie wholly inside the data.
    pub fn vec4_view(self) -> Self {
        BufSlice { size: (self.size / 16 * 16).max(16), ..self }
    }
}

/// One recorded operation.
#[derive(Debug, Clone)]
pub enum Command {
    /// Run `kernel` over `groups` workgroups (the backend lays them out in a 2-D grid).
    /// `bindings` follow the WGSL binding order, the params uniform excluded.
    Dispatch { kernel: Kernel, f64: bool, params: Vec<u8>, bindings: Vec<BufSlice>, groups: u32 },
    /// Zero a window.
    Clear { dst: BufSlice },
    /// Copy `src` into `dst` (same size).
    Copy { src: BufSlice, dst: BufSlice },
}

/// A list of commands for one submission, plus windows read back after it.
#[derive(Debug, Default, Clone)]
pub struct Recording {
    pub commands: Vec<Command>,
    pub readbacks: Vec<BufSlice>,
}

impl Recording {
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty() && self.readbacks.is_empty()
    }
}

/// Most untimed pre-heat submissions before one timed submission (see
/// `RunOptions::timing_preheat_ms`): where each takes little device time (a small
/// field on a fast GPU), the pre-heat stops here, before its device time is reached.
pub const PREHEAT_MAX_SUBMISSIONS: u32 = 1000;

/// Records commands against a backend, allocating buffers from its pool. Temporary
/// buffers are released when the recorder is dropped (after the submission).
pub struct Recorder<'b> {
    pub backend: &'b dyn Backend,
    pub rec: Recording,
    temps: Vec<BufId>,
    /// Readback results of earlier submissions, indexed as returned by `readback`.
    results: Vec<Vec<u8>>,
    /// Kernel seconds summed over this recorder's submissions.
    pub kernel_seconds: Option<f64>,
    pub submissions: u32,
    /// See `RunOptions::timing_replays`.
    pub replays: u32,
    /// See `RunOptions::timing_batched`.
    pub replays_batched: bool,
    /// See `RunOptions::timing_preheat_ms`.
    pub preheat_ms: u32,
    /// Untimed pre-heat submissions run so far (see `preheat`).
    pub preheat_submissions: u32,
    /// Wall seconds spent in `submit` (recording, submission, waiting, readbacks).
    pub submit_seconds: f64,
    /// Wall seconds spent creating (or taking from the pool) this run's buffers.
    pub alloc_seconds: f64,
}

impl<'b> Recorder<'b> {
    pub fn new(backend: &'b dyn Backend) -> Self {
        Recorder {
            backend,
            rec: Recording::default(),
            temps: Vec::new(),
            results: Vec::new(),
            kernel_seconds: None,
            submissions: 0,
            replays: 0,
            replays_batched: false,
            preheat_ms: 0,
            preheat_submissions: 0,
            submit_seconds: 0.0,
            alloc_seconds: 0.0,
        }
    }

    /// A buffer that lives until the recorder is dropped (after the run's downloads).
    pub fn alloc(&mut self, bytes: u64) -> Result<BufId> {
        let t = std::time::Instant::now();
        let id = self.backend.create_buffer(bytes.max(16));
        self.alloc_seconds += t.elapsed().as_secs_f64();
        let id = id?;
        self.temps.push(id);
        Ok(id)
    }

    /// Take `id` out of this recorder's temporaries: the caller releases it.
    pub fn keep(&mut self, id: BufId) {
        self.temps.retain(|&t| t != id);
    }

    /// Alias of [`Recorder::alloc`] for scratch space.
    pub fn temp(&mut self, bytes: u64) -> Result<BufId> {
        self.alloc(bytes)
    }

    /// Record a dispatch of `kernel` over `groups` workgroups (none when 0).
    pub fn dispatch<P: bytemuck::Pod>(&mut self, kernel: Kernel, f64: bool, params: &P, bindings: &[BufSlice], groups: u64) -> Result<()> {
        self.dispatch_bytes(kernel, f64, bytemuck::bytes_of(params), bindings, groups)
    }

    /// [`Recorder::dispatch`] with params already serialized.
    pub fn dispatch_bytes(&mut self, kernel: Kernel, f64: bool, params: &[u8], bindings: &[BufSlice], groups: u64) -> Result<()> {
        if groups == 0 {
            return Ok(());
        }
        let groups = u32::try_from(groups).map_err(|_| Error::TooLarge {
            what: format!("{} workgroups", kernel.name()),
            actual: groups,
            limit: u32::MAX as u64,
        })?;
        self.rec.commands.push(Command::Dispatch { kernel, f64, params: params.to_vec(), bindings: bindings.to_vec(), groups });
        Ok(())
    }

    /// Dispatch a team kernel (shaders/common/team.wgsl) over `blocks` blocks: one
    /// block per workgroup without subgroups, else one per subgroup of the adapter's
    /// largest size (smaller subgroups leave teams idle; the kernels walk blocks
    /// grid-stride, so every count covers them all).
    pub fn dispatch_teams(&mut self, kernel: Kernel, f64: bool, params: &[u8], bindings: &[BufSlice], blocks: u64) -> Result<()> {
        self.dispatch_teams_max(kernel, f64, params, bindings, blocks, 0)
    }

    /// [`Recorder::dispatch_teams`] with at most `max_groups` workgroups (0: no
    /// limit) when the kernel runs with subgroup teams; the teams then walk several
    /// blocks each.
    pub fn dispatch_teams_max(
        &mut self,
        kernel: Kernel,
        f64: bool,
        params: &[u8],
        bindings: &[BufSlice],
        blocks: u64,
        max_groups: u64,
    ) -> Result<()> {
        let info = self.backend.info();
        let subgroup_teams = info.subgroups && kernel.has_subgroup() && info.subgroup_max > 0;
        let mut groups = if subgroup_teams {
            let lanes = kernel.team_lanes().unwrap_or(info.subgroup_max);
            let teams = (crate::kernels::workgroup_size(kernel)? / lanes).max(1) as u64;
            blocks.div_ceil(teams)
        } else {
            blocks
        };
        // workgroup teams (no subgroups) always get one block per workgroup, and so do
        // all teams where the adapter cuts long loops short (each walked block costs
        // loop iterations: `BackendInfo::loop_limit`)
        if max_groups > 0 && subgroup_teams && info.loop_limit.is_none() {
            groups = groups.min(max_groups);
        }
        self.dispatch_bytes(kernel, f64, params, bindings, groups)
    }

    pub fn clear(&mut self, dst: BufSlice) {
        self.rec.commands.push(Command::Clear { dst });
    }

    pub fn copy(&mut self, src: BufSlice, dst: BufSlice) {
        self.rec.commands.push(Command::Copy { src, dst });
    }

    /// Ask for `slice` to be read back after the next submission; returns its index
    /// for [`Recorder::result`].
    pub fn readback(&mut self, slice: BufSlice) -> usize {
        self.rec.readbacks.push(slice);
        self.results.len() + self.rec.readbacks.len() - 1
    }

    /// Submit everything recorded so far as one submission and wait for it.
    pub fn submit(&mut self) -> Result<()> {
        if self.rec.is_empty() {
            return Ok(());
        }
        let t0 = std::time::Instant::now();
        let rec = std::mem::take(&mut self.rec);
        let sub = self.backend.submit(&rec)?;
        self.submissions += 1;
        let mut t = sub.kernel_seconds;
        if self.replays > 0 && t.is_some() && self.replays_batched {
            // every replay's commands in one submission: the device runs them back to
            // back, with no wait for the host between them; one span, so the mean
            let n = self.replays as usize;
            let mut commands = Vec::with_capacity(rec.commands.len() * n);
            for _ in 0..n {
                commands.extend(rec.commands.iter().cloned());
            }
            let again = Recording { commands, readbacks: Vec::new() };
            self.preheat(&again, t)?;
            if let Some(span) = self.backend.submit(&again)?.kernel_seconds {
                t = Some(span / n as f64);
            }
        } else if self.replays > 0 && t.is_some() {
            let again = Recording { commands: rec.commands.clone(), readbacks: Vec::new() };
            self.preheat(&again, t)?;
            let mut ts = Vec::new();
            for _ in 0..self.replays {
                ts.extend(self.backend.submit(&again)?.kernel_seconds);
            }
            ts.sort_by(f64::total_cmp);
            t = ts.get(ts.len() / 2).copied().or(t);
        }
        if let Some(t) = t {
            *self.kernel_seconds.get_or_insert(0.0) += t;
        }
        self.results.extend(sub.readbacks);
        self.submit_seconds += t0.elapsed().as_secs_f64();
        Ok(())
    }

    /// Queue the commands recorded so far without waiting (`Backend::submit_nowait`);
    /// the readbacks recorded so far stay for the next [`Recorder::submit`], so their
    /// indices hold. Untimed: `kernel_seconds` is not added to.
    pub fn submit_nowait(&mut self) -> Result<()> {
        if self.rec.commands.is_empty() {
            return Ok(());
        }
        let t0 = std::time::Instant::now();
        let rec = Recording { commands: std::mem::take(&mut self.rec.commands), readbacks: Vec::new() };
        self.backend.submit_nowait(&rec)?;
        self.submissions += 1;
        self.submit_seconds += t0.elapsed().as_secs_f64();
        Ok(())
    }

    /// Untimed submissions of `again` until `preheat_ms` of device time have run
    /// (`first`: the device seconds of the submission just timed, counted towards it);
    /// none where the backend gives no kernel times, and none past twice `preheat_ms`
    /// of wall time or `PREHEAT_MAX_SUBMISSIONS` submissions (tiny submissions, whose
    /// time is the launch).
    fn preheat(&mut self, again: &Recording, first: Option<f64>) -> Result<()> {
        let goal = f64::from(self.preheat_ms) / 1e3;
        let t0 = std::time::Instant::now();
        let mut heat = first.unwrap_or(0.0);
        let mut n = 0;
        while heat < goal && n < PREHEAT_MAX_SUBMISSIONS && t0.elapsed().as_secs_f64() < 2.0 * goal {
            match self.backend.submit(again)?.kernel_seconds {
                Some(s) => heat += s,
                None => break,
            }
            n += 1;
        }
        self.preheat_submissions += n;
        Ok(())
    }

    /// The bytes of readback `index` (after the submission that carried it).
    pub fn result(&self, index: usize) -> Result<&[u8]> {
        self.results.get(index).map(|v| v.as_slice()).ok_or_else(|| Error::Device(format!("readback {index} not available yet")))
    }
}

impl Drop for Recorder<'_> {
    fn drop(&mut self) {
        for id in self.temps.drain(..) {
            self.backend.release_buffer(id);
        }
    }
}
