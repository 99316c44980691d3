//! The buffer of a program's program-scope `__global` variables (and large
//! `__constant` tables, `ferrocl_compiler::GlobalVariables`): one per
//! (program executable, device), allocated and initialised when the first
//! kernel of the executable is created, and shared by all its kernels
//! (`ferrocl_compiler::GlobalVariables`). Its contents live as long as the
//! executable: a rebuild (allowed only without kernels) starts afresh.
//!
//! Layer: programs (owned by `super::program`, above `super::device`).

use std::sync::Arc;

use ferrocl_compiler as compiler;
use parking_lot::Mutex;

use super::device::Device;
use super::error::CLResult;
use crate::vk::buffer::{Buffer, BufferKind};

/// The buffer of one device: (device key, the executable it was made
/// for, the buffer).
type DeviceBuffer = (usize, Arc<compiler::Program>, Arc<Buffer>);

/// Per device: the executable the buffer was made for, and the buffer.
#[derive(Default)]
pub struct GlobalVarBuffers {
    buffers: Mutex<Vec<DeviceBuffer>>,
}

impl GlobalVarBuffers {
    /// The global-variable buffer of executable `exe` on `device` (None when
    /// the program has no program-scope `__global` variables or large
    /// `__constant` tables).
    pub fn get(
        &self,
        device: &Device,
        exe: &Arc<compiler::Program>,
    ) -> CLResult<Option<Arc<Buffer>>> {
        let vars = &exe.global_variables;
        if vars.size == 0 {
            return Ok(None);
        }
        let key = device as *const Device as usize;
        let mut buffers = self.buffers.lock();
        if let Some((_, _, b)) = buffers
            .iter()
            .find(|(k, p, _)| *k == key && Arc::ptr_eq(p, exe))
        {
            return Ok(Some(b.clone()));
        }
        // A rebuild replaced the executable: its variables start afresh.
        buffers.retain(|(k, _, _)| *k != key);
        let vkdev = device.vk()?;
        let buffer = Arc::new(Buffer::new(&vkdev, vars.size, BufferKind::Storage)?);
        // Pointer initializers hold buffer device addresses, or with
        // descriptor addressing (every kernel of an executable has the same
        // format) the buffer's slot (`abi`).
        let base = if exe
            .kernels
            .iter()
            .any(|k| k.addressing == compiler::Addressing::Descriptor)
        {
            u64::from(compiler::GLOBAL_VARIABLES_SLOT) << 32
        } else {
            buffer.address
        };
        device.upload_sync(&buffer, 0, &relocated(vars, base))?;
        buffers.push((key, exe.clone(), buffer.clone()));
        Ok(Some(buffer))
    }
}

/// The initial contents with every relocation resolved against `base`.
fn relocated(vars: &compiler::GlobalVariables, base: u64) -> Vec<u8> {
    let mut data = vars.init.clone();
    for &r in &vars.relocations {
        let r = r as usize;
        if let Some(slot) = data.get_mut(r..r + 8) {
            let v = u64::from_le_bytes(slot.try_into().expect("8 bytes"));
            slot.copy_from_slice(&v.wrapping_add(base).to_le_bytes());
        }
    }
    data
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relocations_add_the_base() {
        let vars = compiler::GlobalVariables {
            size: 20,
            constant_size: 0,
            init: [
                &[7u8, 0, 0, 0][..],
                &16u64.to_le_bytes(),
                &[0, 0, 0, 0, 9, 0, 0, 0],
            ]
            .concat(),
            relocations: vec![4],
        };
        let d = relocated(&vars, 0x1000_0000);
        assert_eq!(&d[..4], &[7, 0, 0, 0]);
        assert_eq!(
            u64::from_le_bytes(d[4..12].try_into().unwrap()),
            0x1000_0010
        );
        assert_eq!(&d[12..], &[0, 0, 0, 0, 9, 0, 0, 0]);
    }
}
