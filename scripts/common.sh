# Helpers shared by scripts/main and scripts/test. Sourced, not run:
#   source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

FERROCL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# step MESSAGE: a visible marker in long logs, with the time since start.
FERROCL_T0=$SECONDS
step() {
  printf '\n== [%dm%02ds] %s\n' $(((SECONDS - FERROCL_T0) / 60)) $(((SECONDS - FERROCL_T0) % 60)) "$*"
}

# Puts cargo on PATH if rustup installed it but this shell has not seen it.
ensure_cargo() {
  if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
  fi
  command -v cargo >/dev/null 2>&1 || {
    echo "cargo not found: run scripts/setup (it installs Rust through rustup)" >&2
    exit 1
  }
}

# The Cargo target directory (CARGO_TARGET_DIR, relative to the repository
# root, or target/).
target_dir() {
  local dir=${CARGO_TARGET_DIR:-target}
  case $dir in
    /*) echo "$dir" ;;
    *) echo "$FERROCL_ROOT/$dir" ;;
  esac
}

# register_icd PROFILE: writes <target>/PROFILE/ferrocl.icd naming that
# build's libferrocl.so and exports OCL_ICD_VENDORS to it, so the ICD loader
# of this shell and its children sees ferrocl (and nothing else).
register_icd() {
  local dir lib
  dir="$(target_dir)/$1"
  lib="$dir/libferrocl.so"
  [ -f "$lib" ] || { echo "$lib not found: build it first" >&2; exit 1; }
  printf '%s\n' "$lib" >"$dir/ferrocl.icd"
  export OCL_ICD_VENDORS="$dir/ferrocl.icd"
  echo "OCL_ICD_VENDORS=$OCL_ICD_VENDORS"
}

# build_mandelbrot: compiles examples/mandelbrot.c (plain C against the
# system's CL/cl.h and libOpenCL) to out/mandelbrot.
build_mandelbrot() {
  mkdir -p "$FERROCL_ROOT/out"
  gcc -std=c11 -O2 -Wall -Wextra -Werror \
    -o "$FERROCL_ROOT/out/mandelbrot" "$FERROCL_ROOT/examples/mandelbrot.c" -lOpenCL
}
