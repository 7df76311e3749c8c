#!/usr/bin/env bash
# Installs what gpubench needs to build and test on Debian/Ubuntu, skipping what is there.
# Works with or without the CUDA toolkit: the GPU backends are built only when nvcc is found.
set -euo pipefail

packages=(build-essential cmake git pkg-config libeigen3-dev libopenblas-dev libcli11-dev nlohmann-json3-dev
          libsqlite3-dev libpq-dev libgtest-dev python3 python3-jsonschema python3-numpy python3-scipy
          postgresql  # the results store; its tests start a throw-away PostgreSQL server
          # The sanitizer build and its fuzzers: clang, its sanitizer and libFuzzer runtimes, its OpenMP.
          clang libclang-rt-dev libomp-dev
          openmpi-bin libopenmpi-dev  # MPI: -DGPUBENCH_WITH_MPI=ON, and the tests' MPI variant
          # The Python package (python/): its headers, the wheel test's virtual environment, its tests.
          python3-dev python3-venv python3-pip python3-pytest python3-pandas
          zsh)  # the zsh completion script's test sources it in zsh
# The HTML report test renders in a real browser where one can be installed.
if [[ "${GPUBENCH_WITH_BROWSER:-1}" == 1 ]]; then packages+=(chromium); fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null; then
    sudo=(sudo)
  else
    echo "setup: missing packages (${missing[*]}) and not root; install them or run as root" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  # chromium is optional (its test skips without it); everything else is required.
  if ! DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
    required=()
    for package in "${missing[@]}"; do [[ "$package" == chromium ]] || required+=("$package"); done
    ((${#required[@]} == 0)) || DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${required[@]}" >/dev/null
    echo "setup: chromium could not be installed; the HTML rendering test will be skipped" >&2
  fi
fi

cmake_version=$(cmake --version | head -n1 | awk '{print $3}')
if ! printf '3.24\n%s\n' "$cmake_version" | sort -V -C; then
  echo "setup: cmake $cmake_version is older than 3.24; install a newer one (e.g. python3 -m pip install cmake)" >&2
  exit 1
fi

if command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: CUDA toolkit found; the GPU backends will be built"
else
  echo "setup: no CUDA toolkit; building the CPU backends only"
fi

# The Python package's build: scikit-build-core and nanobind, from PyPI where the distribution
# has none (Debian 12 packages neither), for the interpreter the tests use.
python=/usr/bin/python3
[[ -x $python ]] || python=$(command -v python3)
if ! "$python" -c 'import scikit_build_core, nanobind' 2>/dev/null; then
  echo "setup: installing scikit-build-core and nanobind for $python"
  pip_flags=(--quiet)
  # An interpreter that the distribution manages (PEP 668) takes them with this flag; the
  # distribution's own packages (numpy, pandas, pytest) stay as they are.
  if "$python" -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    pip_flags+=(--break-system-packages)
  fi
  as_root=()
  if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null; then as_root=(sudo); fi
  "${as_root[@]}" "$python" -m pip install "${pip_flags[@]}" scikit-build-core nanobind >/dev/null
fi
