//! Where and when a benchmark ran, and how much memory the machine has.

use serde::{Deserialize, Serialize};

/// The machine a report was measured on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// The first "model name" of `/proc/cpuinfo`, or "unknown".
    pub cpu: String,
    /// Logical CPUs available to this process.
    pub logical_cpus: usize,
    /// Operating system (`std::env::consts::OS`).
    pub os: String,
    /// Architecture (`std::env::consts::ARCH`).
    pub arch: String,
}

impl Machine {
    /// This machine.
    pub fn this() -> Self {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split(':').nth(1))
                    .map(|m| m.trim().to_string())
            })
            .unwrap_or_else(|| "unknown".into());
        Machine {
            cpu,
            logical_cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
        }
    }
}

/// `/proc/loadavg` (the machine may be shared), where there is one.
pub fn load_average() -> Option<String> {
    std::fs::read_to_string("/proc/loadavg").ok().map(|s| s.trim().to_string())
}

/// Now, as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Bytes of RAM and swap (`MemTotal` + `SwapTotal` of `/proc/meminfo`); `None` where that
/// cannot be read, and then only the allocator's own refusal guards a size.
pub fn memory_bytes() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib = |key: &str| -> Option<u128> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        line.split_whitespace().nth(1)?.parse().ok()
    };
    Some((kib("MemTotal:")? + kib("SwapTotal:").unwrap_or(0)) * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_machine() {
        let now = utc_now();
        let parsed: jiff::Timestamp = now.parse().unwrap();
        assert_eq!(parsed.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(), now);
        assert!(now.len() == 20 && now.ends_with('Z') && now.as_bytes()[10] == b'T', "{now}");
        assert!(parsed.as_second() > 1_700_000_000);
        let m = Machine::this();
        assert!(m.logical_cpus >= 1 && !m.cpu.is_empty() && !m.os.is_empty());
        if cfg!(target_os = "linux") {
            assert!(memory_bytes().unwrap() > 1 << 20);
        }
    }
}
