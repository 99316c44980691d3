//! The worker processes of the fuzzers (`ferrocl-fuzz`, `ferrocl-ilfuzz`,
//! `ferrocl-apifuzz`): each reports its progress as lines on stdout,
//! which the parent reads with a timeout to tell a hang from slow work.

use std::io::{BufRead, BufReader};
use std::process::Child;
use std::sync::mpsc::{self, Receiver};

/// The lines `child` writes to its (piped) stdout, read by a thread of
/// their own so that the parent can wait for them with a timeout
/// (`Receiver::recv_timeout`). The channel closes when stdout does.
pub fn stdout_lines(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("the worker's stdout is piped");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}
