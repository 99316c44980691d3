//! Comparing results read back with a CPU reference.

/// Panics at the first element where `got` and `want` differ by more than
/// `tol * max(1, |want|)`, naming its index; also if the lengths differ.
#[track_caller]
pub fn assert_close(what: &str, got: &[f32], want: &[f32], tol: f32) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let bound = tol * w.abs().max(1.0);
        assert!(
            (g - w).abs() <= bound,
            "{what}[{i}]: got {g}, want {w} (tolerance {bound})"
        );
    }
}

/// Panics at the first element where `got` and `want` differ, naming its
/// index (clearer than `assert_eq!` on long vectors).
#[track_caller]
pub fn assert_same<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        panic!("{what}[{i}]: got {:?}, want {:?}", got[i], want[i]);
    }
}

/// The value of the half (IEEE binary16) with bits `h`: exact, as every
/// half is a double.
pub fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = (h >> 10) & 0x1f;
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        _ => (1024.0 + m) * 2f64.powi(i32::from(e) - 25),
    }
}
