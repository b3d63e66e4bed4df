#!/usr/bin/env bash
# shellcheck disable=SC2015  # `check && ok ... || fail ...`: ok only prints, so fail runs iff the check fails
# integration.install: the install prefix builds and runs an unmodified ACL program.
#
#   install_test.sh --source-dir SRC --build-dir BUILD [options]
#
# Installs the (already built) BUILD with `cmake --install BUILD --prefix PREFIX` (by default the
# CMAKE_INSTALL_PREFIX BUILD was configured with), then, with nothing from the build tree or the
# environment helping (programs are built and run under `env -i PATH=/usr/bin:/bin`):
#   1. checks the CANN-like layout of PREFIX (libascendcl.so with CANN's SONAME, libascendcl.so);
#   2. builds tests/integration/programs/acl_smoke.{c,cpp} with only
#      `cc -I PREFIX/include prog -L PREFIX/lib64 -Wl,-rpath,PREFIX/lib64 -lascendcl` (and -lacl_rt)
#      and runs them; a program built without the RUNPATH runs with LD_LIBRARY_PATH=PREFIX/lib64, and
#      LD_LIBRARY_PATH switches a built program to another libascendcl.so; a copy of PREFIX moved
#      elsewhere works (programs built against it, its ascend-run, its plugins);
#   3. builds tests/integration/consumer with find_package(ascend-run) and -DCMAKE_PREFIX_PATH=PREFIX,
#      and the C program with `pkg-config --cflags --libs ascend-run`, and runs them;
#   4. runs PREFIX/bin/ascend-run info (the plugin and the 2 devices of the default config), with
#      each installed config, and with a config that does not exist (must fail, naming the file);
#   5. builds every examples/<topic>/<topic>.c (.cpp) with only `cc -std=c11 (c++ -std=c++20)
#      -Wall -Wextra -Werror -I PREFIX/include prog -L PREFIX/lib64 -lascendcl`, runs it, and checks exit status 0 and
#      the line of output that says the example saw what it teaches;
#   6. builds the out-of-tree profiler sink examples/profiler_sink against PREFIX, loads it by config
#      (beside the timeline sink) into an unmodified example and checks what it counted.
# Every check runs even after one fails; the summary lists the failures and the exit status is 1.
#
# Options:
#   --prefix DIR            the install prefix (default: CMAKE_INSTALL_PREFIX from BUILD/CMakeCache.txt)
#   --scratch DIR           work folder, emptied first (default: BUILD/tests/integration/install-test)
#   --allow-outside-build   install into a PREFIX outside BUILD (by default such a PREFIX is left
#                           alone and the test is skipped: a test must not overwrite a real install)
#   --version X.Y.Z         the project version the installed files must report
#   --cc CC / --cxx CXX     compilers (default: cc / c++); --cmake CMAKE (default: cmake)
#   --generator G / --make-program M   for the consumer project (default: CMake's default)
#   --sanitize LIST         the build's ARUN_SANITIZE: when not empty the test is skipped (programs
#                           built with a plain `cc` cannot load a sanitizer-instrumented library)
# Exit status: 0 pass, 1 failure, 2 usage, 77 skipped (ctest SKIP_RETURN_CODE).
set -euo pipefail

SKIP=77
usage() { sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }

src_dir="" build_dir="" prefix="" scratch="" allow_outside=0 version=""
cc_bin=cc cxx_bin=c++ cmake_bin=cmake generator="" make_program="" sanitize=""
while [ $# -gt 0 ]; do
  case "$1" in
    --source-dir) src_dir=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    --prefix) prefix=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    --allow-outside-build) allow_outside=1; shift ;;
    --version) version=$2; shift 2 ;;
    --cc) cc_bin=$2; shift 2 ;;
    --cxx) cxx_bin=$2; shift 2 ;;
    --cmake) cmake_bin=$2; shift 2 ;;
    --generator) generator=$2; shift 2 ;;
    --make-program) make_program=$2; shift 2 ;;
    --sanitize) sanitize=$2; shift 2 ;;
    -h|--help) usage ;;
    *) echo "install_test: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$src_dir" ] && [ -n "$build_dir" ] || usage
[ -f "$build_dir/CMakeCache.txt" ] || { echo "install_test: $build_dir is not a configured build folder" >&2; exit 2; }
src_dir=$(realpath "$src_dir")
build_dir=$(realpath "$build_dir")
here="$src_dir/tests/integration"

cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt" | head -n 1; }
configured_prefix=$(cache_value CMAKE_INSTALL_PREFIX)
[ -n "$prefix" ] || prefix=$configured_prefix
prefix=$(realpath -m "$prefix")
[ -n "$scratch" ] || scratch="$build_dir/tests/integration/install-test"
scratch=$(realpath -m "$scratch")

skip() { echo "SKIPPED: $*"; exit "$SKIP"; }
[ -z "$sanitize" ] || skip "the build uses ARUN_SANITIZE=$sanitize: a program built with only cc -lascendcl cannot load a sanitizer-instrumented libascendcl.so"

# Where may the test install? Inside the build tree: always (it is the test's own scratch prefix and
# is wiped first, so stale files cannot make the layout check pass). Elsewhere: only when asked to,
# never over a system prefix unless root, and it must be writable.
inside_build=0
case "$prefix/" in "$build_dir"/?*) inside_build=1 ;; esac
if [ "$inside_build" -eq 0 ]; then
  [ "$allow_outside" -eq 1 ] || skip "CMAKE_INSTALL_PREFIX=$prefix is outside the build tree $build_dir, and the test does not install over a real prefix. Configure with -DCMAKE_INSTALL_PREFIX=$build_dir/test-prefix, or with -DARUN_TEST_INSTALL_OUTSIDE_BUILD=ON to install into $prefix anyway."
  case "$prefix" in
    /|/usr|/usr/local|/opt)
      [ "$(id -u)" -eq 0 ] || skip "refusing to install into the system prefix $prefix as a non-root user" ;;
  esac
  mkdir -p "$prefix" 2>/dev/null && [ -w "$prefix" ] || { echo "install_test: FAIL: $prefix is not writable" >&2; exit 1; }
fi

failures=()
fail() { echo "FAIL: $*"; failures+=("$*"); }
ok() { echo "ok:   $*"; }
step() { echo; echo "=== $*"; }
# The clean environment every program is built and run in: no LD_LIBRARY_PATH, no ASCEND_RUN_CONFIG,
# no CPATH / LIBRARY_PATH / PKG_CONFIG_PATH, no HOME.
clean() { env -i PATH=/usr/bin:/bin "$@"; }
# run_logged NAME CMD...: runs CMD in the clean environment from the scratch folder, output to
# $scratch/NAME.log (shown on failure); returns CMD's status.
run_logged() {
  local name=$1; shift
  local rc=0
  (cd "$scratch" && clean "$@") >"$scratch/$name.log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "--- $name (exit $rc): $*"
    tail -n 40 "$scratch/$name.log" | sed 's/^/    /'
  fi
  return "$rc"
}

rm -rf "$scratch"
mkdir -p "$scratch"

step "install $build_dir into $prefix"
if [ "$inside_build" -eq 1 ]; then rm -rf "$prefix"; fi
if ! "$cmake_bin" --install "$build_dir" --prefix "$prefix" >"$scratch/install.log" 2>&1; then
  tail -n 40 "$scratch/install.log"
  echo "FAIL: cmake --install failed; nothing else can be checked"
  exit 1
fi
ok "cmake --install ($(grep -c -- '-- Installing\|-- Up-to-date' "$scratch/install.log") files)"

lib="$prefix/lib64"

# ---------------------------------------------------------------------------------------------------
step "1. layout"
for h in acl.h acl_base.h acl_rt.h acl_op.h acl_mdl.h acl_base_rt.h acl_base_mdl.h acl_prof.h acl_op_compiler.h \
         acl_rt_allocator.h acl_dump.h error_codes/rt_error_codes.h error_codes/ge_error_codes.h; do
  [ -f "$prefix/include/acl/$h" ] || fail "missing header include/acl/$h"
done
[ -f "$prefix/include/ge/ge_error_codes.h" ] || fail "missing header include/ge/ge_error_codes.h"
[ -f "$prefix/include/arun/arun_ext.h" ] || fail "missing header include/arun/arun_ext.h"
[ -d "$prefix/include/arun/plugin" ] || fail "missing plugin headers include/arun/plugin/"
for h in acl_rt.h acl_op.h acl_mdl.h; do
  grep -Eq "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<](acl/)?${h}[\">]" "$prefix/include/acl/acl.h" \
    || fail "include/acl/acl.h does not include $h"
done
# The umbrella header must compile on its own, in C and C++, with the strictest usual warnings.
echo '#include "acl/acl.h"
int main(void) { return ACL_SUCCESS; }' >"$scratch/umbrella.c"
cp "$scratch/umbrella.c" "$scratch/umbrella.cpp"
run_logged umbrella-c "$cc_bin" -std=c99 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" umbrella.c \
  && ok "acl/acl.h compiles alone as C99 (-Wall -Wextra -Wpedantic -Werror)" \
  || fail "include/acl/acl.h does not compile as C99 with -Wall -Wextra -Wpedantic -Werror"
run_logged umbrella-cxx "$cxx_bin" -std=c++11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I"$prefix/include" umbrella.cpp \
  && ok "acl/acl.h compiles alone as C++11 (-Wall -Wextra -Wpedantic -Werror)" \
  || fail "include/acl/acl.h does not compile as C++11 with -Wall -Wextra -Wpedantic -Werror"

if [ -f "$lib/libascendcl.so" ] && [ ! -L "$lib/libascendcl.so" ]; then
  soname=$(readelf -d "$lib/libascendcl.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [ "$soname" = libascendcl.so ] && ok "libascendcl.so SONAME is $soname (CANN's)" \
    || fail "lib64/libascendcl.so SONAME is '$soname', want CANN's libascendcl.so"
else
  fail "lib64/libascendcl.so is missing or a symlink"
fi
if [ -L "$lib/libacl_rt.so" ]; then
  target=$(readlink "$lib/libacl_rt.so")
  [ "$target" = libascendcl.so ] && ok "libacl_rt.so -> libascendcl.so" \
    || fail "lib64/libacl_rt.so points to '$target', want the relative link libascendcl.so"
  [ -e "$lib/libacl_rt.so" ] || fail "lib64/libacl_rt.so is a dangling link"
else
  fail "lib64/libacl_rt.so is missing or not a symlink"
fi
[ -f "$lib/ascend-run/libarun_device_ascend.so" ] || fail "missing plugin lib64/ascend-run/libarun_device_ascend.so"
[ -f "$prefix/share/ascend-run/configs/default.toml" ] || fail "missing config share/ascend-run/configs/default.toml"
for pkg in runtime ascend-run; do
  f="$prefix/share/info/$pkg/version.info"
  if [ -f "$f" ]; then
    [ -z "$version" ] || grep -qx "Version=$version" "$f" || fail "share/info/$pkg/version.info does not say Version=$version"
  else
    fail "missing share/info/$pkg/version.info"
  fi
done
[ -x "$prefix/bin/ascend-run" ] || fail "missing executable bin/ascend-run"
pkg_config_dir=""
for d in lib64/cmake/ascend-run share/cmake/ascend-run lib/cmake/ascend-run; do
  if [ -f "$prefix/$d/ascend-runConfig.cmake" ]; then pkg_config_dir=$d; break; fi
done
if [ -n "$pkg_config_dir" ]; then
  [ -f "$prefix/$pkg_config_dir/ascend-runConfigVersion.cmake" ] || fail "missing $pkg_config_dir/ascend-runConfigVersion.cmake"
  ok "CMake package in $pkg_config_dir"
else
  fail "missing CMake package (ascend-runConfig.cmake in lib64/cmake/ascend-run, share/cmake/ascend-run or lib/cmake/ascend-run)"
fi
[ -f "$prefix/share/pkgconfig/ascend-run.pc" ] || fail "missing share/pkgconfig/ascend-run.pc (pkg-config's default path for the prefix)"

# Nothing installed may look for libraries in the build tree (outside the prefix).
while IFS= read -r -d '' elf; do
  readelf -h "$elf" >/dev/null 2>&1 || continue
  readelf -d "$elf" 2>/dev/null | sed -n 's/.*(\(RPATH\|RUNPATH\)).*\[\(.*\)\]/\2/p' | tr ':' '\n' | while read -r dir; do
    [ -n "$dir" ] || continue
    # shellcheck disable=SC2016  # a literal $ORIGIN
    case "$dir" in
      '$ORIGIN'*|"$prefix"|"$prefix"/*) ;;
      "$build_dir"|"$build_dir"/*|"$src_dir"|"$src_dir"/*) echo "${elf#"$prefix"/}: $dir" ;;
    esac
  done
done < <(find "$prefix" -type f \( -name '*.so*' -o -path "$prefix/bin/*" \) -print0) >"$scratch/rpaths.txt"
if [ -s "$scratch/rpaths.txt" ]; then
  while read -r line; do fail "installed file has an RPATH/RUNPATH into the build tree: $line"; done <"$scratch/rpaths.txt"
else
  ok "no installed RPATH/RUNPATH points into the build tree"
fi
# Exports: the C API only (a warning: it does not break a program, but risks clashes with other copies
# of the same C++ libraries in the process).
if [ -f "$lib/libascendcl.so" ]; then
  extra=$(nm -D --defined-only "$lib/libascendcl.so" | awk '{print $3}' | grep -Evc '^(acl|arun|_init$|_fini$)' || true)
  [ "$extra" -eq 0 ] || echo "warn: libascendcl.so exports $extra symbols that are not acl*/arun* (e.g. $(nm -D --defined-only "$lib/libascendcl.so" | awk '{print $3}' | grep -Ev '^(acl|arun)' | head -n 1 | c++filt))"
fi

# ---------------------------------------------------------------------------------------------------
step "2. cc/c++ -I$prefix/include prog -L$lib -Wl,-rpath,$lib -lascendcl (and -lacl_rt), run under env -i"
rpath="-Wl,-rpath,$lib"
cp "$here/programs/acl_smoke.c" "$here/programs/acl_smoke.cpp" "$scratch/"
# check_program NAME [LIB]: the program must need libascendcl.so by CANN's SONAME, find it in LIB
# (default: the prefix's lib64) through its RUNPATH, load nothing from the build tree, and pass.
check_program() {
  local name=$1 want_lib=${2:-$lib}
  local needed runpath
  needed=$(readelf -d "$scratch/$name" | sed -n 's/.*(NEEDED).*\[\(.*libascendcl.*\)\]/\1/p')
  [ "$needed" = libascendcl.so ] || fail "$name records NEEDED '$needed', want libascendcl.so"
  runpath=$(readelf -d "$scratch/$name" | sed -n 's/.*(RUNPATH).*\[\(.*\)\]/\1/p')
  local dir found=0
  while IFS= read -r dir; do
    [ -n "$dir" ] && [ "$(realpath -m "$dir")" = "$want_lib" ] && found=1
  done < <(tr ':' '\n' <<<"$runpath")
  [ "$found" -eq 1 ] || fail "$name has RUNPATH '$runpath', want one into $want_lib"
  if run_logged "$name-run" "./$name"; then
    if grep -qx PASS "$scratch/$name-run.log"; then ok "$name runs under env -i"; else fail "$name exited 0 without printing PASS"; fi
  else
    fail "$name failed under env -i PATH=/usr/bin:/bin (see $scratch/$name-run.log)"
    return
  fi
  # Which shared objects did the run load? (LD_DEBUG is only a diagnostic here: the run above had none.)
  (cd "$scratch" && clean LD_DEBUG=files "./$name") >/dev/null 2>"$scratch/$name-ld.log" || true
  local stray
  stray=$(sed -n 's/.*calling init: \(.*\)$/\1/p' "$scratch/$name-ld.log" | sort -u | while read -r so; do
            case "$so" in "$prefix"/*) ;; "$build_dir"/*|"$src_dir"/*) echo "$so" ;; esac
          done)
  [ -z "$stray" ] || fail "$name loaded from the build tree: $stray"
  grep -q "calling init: $want_lib/ascend-run/libarun_device_ascend.so" "$scratch/$name-ld.log" \
    || fail "$name did not load the installed plugin $want_lib/ascend-run/libarun_device_ascend.so"
}
for libname in ascendcl acl_rt; do
  if run_logged "build-c-$libname" "$cc_bin" -I"$prefix/include" acl_smoke.c -L"$lib" "$rpath" -l"$libname" -o "smoke_c_$libname"; then
    check_program "smoke_c_$libname"
  else
    fail "cc -I$prefix/include acl_smoke.c -L$lib -l$libname does not build"
  fi
  if run_logged "build-cxx-$libname" "$cxx_bin" -I"$prefix/include" acl_smoke.cpp -L"$lib" "$rpath" -l"$libname" -o "smoke_cxx_$libname"; then
    check_program "smoke_cxx_$libname"
  else
    fail "c++ -I$prefix/include acl_smoke.cpp -L$lib -l$libname does not build"
  fi
done
# Both names on one link line: one library, one runtime.
if run_logged build-c-both "$cc_bin" -I"$prefix/include" acl_smoke.c -L"$lib" "$rpath" -lascendcl -lacl_rt -o smoke_c_both; then
  check_program smoke_c_both
else
  fail "cc ... -lascendcl -lacl_rt does not build"
fi
# The same programs with warnings as errors: an unmodified CANN program builds cleanly.
run_logged strict-c "$cc_bin" -std=c11 -Wall -Wextra -Werror -I"$prefix/include" acl_smoke.c -L"$lib" "$rpath" -lascendcl -o smoke_c_strict \
  && ok "acl_smoke.c builds with -std=c11 -Wall -Wextra -Werror" \
  || fail "acl_smoke.c does not build with -std=c11 -Wall -Wextra -Werror"
run_logged strict-cxx "$cxx_bin" -std=c++17 -Wall -Wextra -Werror -I"$prefix/include" acl_smoke.cpp -L"$lib" "$rpath" -lascendcl -o smoke_cxx_strict \
  && ok "acl_smoke.cpp builds with -std=c++17 -Wall -Wextra -Werror" \
  || fail "acl_smoke.cpp does not build with -std=c++17 -Wall -Wextra -Werror"


# CANN's way: no RUNPATH, the library found through LD_LIBRARY_PATH.
if run_logged build-no-rpath "$cc_bin" -I"$prefix/include" acl_smoke.c -L"$lib" -lascendcl -o smoke_no_rpath; then
  if run_logged run-no-rpath env LD_LIBRARY_PATH="$lib" ./smoke_no_rpath && grep -qx PASS "$scratch/run-no-rpath.log"; then
    ok "built without RUNPATH, runs with LD_LIBRARY_PATH=$lib"
  else
    fail "a program built with only -L$lib -lascendcl does not run with LD_LIBRARY_PATH=$lib"
  fi
else
  fail "cc acl_smoke.c -L$lib -lascendcl (no RUNPATH) does not build"
fi

# LD_LIBRARY_PATH switches a program built against the prefix to another libascendcl.so (a CANN
# install, say): here a stand-in whose aclrtGetVersion reports 99.98.97.
mkdir -p "$scratch/other-lib"
cat >"$scratch/other-lib/other.c" <<'C'
#include <stdint.h>
int aclrtGetVersion(int32_t *major, int32_t *minor, int32_t *patch) { *major = 99; *minor = 98; *patch = 97; return 0; }
C
cat >"$scratch/which_runtime.c" <<'C'
#include <stdio.h>
#include "acl/acl.h"
int main(void) {
  int32_t major = 0, minor = 0, patch = 0;
  if (aclrtGetVersion(&major, &minor, &patch) != ACL_SUCCESS) return 1;
  printf("runtime %d.%d.%d\n", (int)major, (int)minor, (int)patch);
  return 0;
}
C
if run_logged build-other-lib "$cc_bin" -shared -fPIC -Wl,-soname,libascendcl.so other-lib/other.c -o other-lib/libascendcl.so \
   && run_logged build-which "$cc_bin" -Wno-deprecated-declarations -I"$prefix/include" which_runtime.c -L"$lib" "$rpath" -lascendcl -o which_runtime \
   && run_logged which-ours ./which_runtime && run_logged which-other env LD_LIBRARY_PATH="$scratch/other-lib" ./which_runtime; then
  if grep -q 'runtime 99.98.97' "$scratch/which-ours.log"; then
    fail "without LD_LIBRARY_PATH the program ran the stand-in library"
  elif ! grep -qx 'runtime 99.98.97' "$scratch/which-other.log"; then
    fail "LD_LIBRARY_PATH=$scratch/other-lib did not switch the program to the other libascendcl.so"
  else
    ok "LD_LIBRARY_PATH switches the program to another libascendcl.so ($(cat "$scratch/which-ours.log") -> $(cat "$scratch/which-other.log"))"
  fi
else
  fail "the library-switch check could not build or run (see $scratch/which-*.log)"
fi

# The install is relocatable: a copy elsewhere finds its own library, plugins and configs.
# (Outside the build tree, where check_program would count every load from it as a stray.)
moved_root=$(mktemp -d "${TMPDIR:-/tmp}/arun-moved-prefix.XXXXXX")
moved="$moved_root/prefix"
cp -a "$prefix" "$moved"
if run_logged build-moved "$cc_bin" -I"$moved/include" acl_smoke.c -L"$moved/lib64" -Wl,-rpath,"$moved/lib64" -lascendcl -o smoke_moved; then
  check_program smoke_moved "$moved/lib64"
else
  fail "acl_smoke.c does not build against a moved copy of the prefix"
fi
if run_logged moved-info "$moved/bin/ascend-run" info && grep -Eq "^config: +$moved/share/ascend-run/configs/default.toml" "$scratch/moved-info.log"; then
  ok "the moved prefix's ascend-run uses its own default config"
else
  fail "the moved prefix's ascend-run info does not use $moved/share/ascend-run/configs/default.toml"
fi
if flags=$(clean PKG_CONFIG_PATH="$moved/share/pkgconfig" pkg-config --cflags --libs ascend-run 2>/dev/null) \
   && [[ "$flags" == *"$moved/share/pkgconfig/../../"* ]]; then
  ok "the moved prefix's ascend-run.pc points into the moved prefix"
else
  fail "the moved prefix's ascend-run.pc does not point into $moved ($flags)"
fi
rm -rf "$moved_root"

# ---------------------------------------------------------------------------------------------------
step "3a. CMake consumer: find_package(ascend-run) with -DCMAKE_PREFIX_PATH=$prefix"
consumer_args=(-S "$here/consumer" -B "$scratch/consumer" -DCMAKE_PREFIX_PATH="$prefix"
               -DCMAKE_C_COMPILER="$cc_bin" -DCMAKE_CXX_COMPILER="$cxx_bin")
[ -z "$generator" ] || consumer_args+=(-G "$generator")
[ -z "$make_program" ] || consumer_args+=(-DCMAKE_MAKE_PROGRAM="$make_program")
if run_logged consumer-configure "$cmake_bin" "${consumer_args[@]}"; then
  found_dir=$(sed -n 's/^-- ascend-run .* from \(.*\)$/\1/p' "$scratch/consumer-configure.log")
  ok "find_package(ascend-run) found $found_dir"
  found_version=$(sed -n 's/^-- ascend-run \([^ ]*\) from .*$/\1/p' "$scratch/consumer-configure.log")
  [ -z "$version" ] || [ "$found_version" = "$version" ] || fail "the CMake package says version '$found_version', want $version"
  if run_logged consumer-build "$cmake_bin" --build "$scratch/consumer" -j 2; then
    for exe in consumer_c consumer_cxx; do
      cp "$scratch/consumer/$exe" "$scratch/$exe"
      check_program "$exe"
    done
  else
    fail "the CMake consumer does not build"
  fi
else
  fail "the CMake consumer does not configure with only -DCMAKE_PREFIX_PATH=$prefix (see $scratch/consumer-configure.log)"
fi

step "3b. pkg-config: cc prog \$(pkg-config --cflags --libs ascend-run)"
if ! command -v pkg-config >/dev/null; then
  fail "pkg-config is not installed (tools/setup.sh installs it)"
elif flags=$(clean PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --cflags --libs ascend-run 2>"$scratch/pkg-config.log"); then
  ok "pkg-config --cflags --libs ascend-run: $flags"
  pc_version=$(clean PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --modversion ascend-run)
  [ -z "$version" ] || [ "$pc_version" = "$version" ] || fail "ascend-run.pc says version '$pc_version', want $version"
  # shellcheck disable=SC2086  # the flags are words
  if run_logged build-pkg-config "$cc_bin" acl_smoke.c $flags -o smoke_pkg_config; then
    check_program smoke_pkg_config
  else
    fail "cc acl_smoke.c \$(pkg-config --cflags --libs ascend-run) does not build"
  fi
else
  cat "$scratch/pkg-config.log"
  fail "pkg-config does not find ascend-run in $prefix/share/pkgconfig"
fi

# ---------------------------------------------------------------------------------------------------
step "4. $prefix/bin/ascend-run under env -i"
tool="$prefix/bin/ascend-run"
if run_logged tool-version "$tool" version; then
  [ -z "$version" ] || grep -q "ascend-run $version" "$scratch/tool-version.log" || fail "ascend-run version does not say $version"
else
  fail "ascend-run version failed"
fi
if run_logged tool-info "$tool" info; then
  info="$scratch/tool-info.log"
  grep -Eq "^config: +$prefix/share/ascend-run/configs/default.toml" "$info" \
    || fail "ascend-run info does not use the installed default config $prefix/share/ascend-run/configs/default.toml"
  grep -Eq '^ +device ascend ' "$info" || fail "ascend-run info does not name the device plugin 'ascend'"
  grep -q "$lib/ascend-run/libarun_device_ascend.so" "$info" || fail "ascend-run info does not show the installed plugin library"
  grep -q '2 device(s)' "$info" || fail "ascend-run info does not report '2 device(s)' for the plugin"
  devices=$(grep -Ec '^ +[0-9]+: ' "$info" || true)
  [ "$devices" -eq 2 ] || fail "ascend-run info lists $devices devices, want 2"
  if grep -Fq -e "$build_dir/lib64" -e "$build_dir/share" "$info"; then fail "ascend-run info mentions the build tree"; fi
  ok "ascend-run info: plugin 'ascend', $devices devices"
else
  fail "ascend-run info exited non-zero under env -i"
fi
# The operator library's kernel binary is installed and passes the loader's checks.
op_kernels="$lib/ascend-run/kernels/arun_op_kernels.so"
if run_logged tool-op-kernels "$tool" kernel-info "$op_kernels"; then
  grep -q "ascend-run kernel binary, ABI 1, 34 kernels" "$scratch/tool-op-kernels.log" \
    && ok "ascend-run kernel-info lib64/ascend-run/kernels/arun_op_kernels.so: 34 kernels" \
    || fail "ascend-run kernel-info $op_kernels does not list 34 kernels"
else
  fail "ascend-run kernel-info $op_kernels failed"
fi
rc=0
(cd "$scratch" && clean "$tool" info --config /nonexistent.toml) >"$scratch/tool-missing.log" 2>&1 || rc=$?
if [ "$rc" -eq 0 ]; then
  fail "ascend-run info --config /nonexistent.toml exited 0"
elif ! grep -q '/nonexistent.toml' "$scratch/tool-missing.log"; then
  fail "ascend-run info --config /nonexistent.toml (exit $rc) does not name the file"; sed 's/^/    /' "$scratch/tool-missing.log"
else
  ok "ascend-run info --config /nonexistent.toml: exit $rc, names the file"
fi
# Every configuration the prefix ships must start the runtime from the prefix alone.
for cfg in "$prefix"/share/ascend-run/configs/*.toml; do
  [ -e "$cfg" ] || continue
  name=$(basename "$cfg")
  if run_logged "tool-info-$name" "$tool" info --config "$cfg"; then
    ok "ascend-run info --config share/ascend-run/configs/$name"
  else
    fail "the installed config share/ascend-run/configs/$name does not start the runtime from the installed prefix"
  fi
done
# ASCEND_RUN_CONFIG selects a config for an unmodified program (aclInit(NULL)).
single="$prefix/share/ascend-run/configs/single-core.toml"
if [ -f "$single" ]; then
  if (cd "$scratch" && clean ASCEND_RUN_CONFIG="$single" ./smoke_c_ascendcl) >"$scratch/env-config.log" 2>&1; then
    grep -q ', 1 device(s)' "$scratch/env-config.log" && ok "ASCEND_RUN_CONFIG=single-core.toml: 1 device" \
      || fail "ASCEND_RUN_CONFIG=$single did not give 1 device"
  else
    fail "acl_smoke.c fails with ASCEND_RUN_CONFIG=$single"; tail -n 5 "$scratch/env-config.log"
  fi
fi

# CANN's variables on an unmodified program: visible devices, log to stdout, log files.
if (cd "$scratch" && clean ASCEND_RT_VISIBLE_DEVICES=1 ASCEND_GLOBAL_LOG_LEVEL=1 ASCEND_SLOG_PRINT_TO_STDOUT=1 \
      ./smoke_c_ascendcl) >"$scratch/env-visible.log" 2>"$scratch/env-visible.err"; then
  grep -q ', 1 device(s)$' "$scratch/env-visible.log" && grep -q 'ASCEND_RT_VISIBLE_DEVICES="1": 1 of 2 device(s) visible' \
    "$scratch/env-visible.log" && ok "ASCEND_RT_VISIBLE_DEVICES=1: 1 device; ASCEND_SLOG_PRINT_TO_STDOUT=1: log on stdout" \
    || { fail "ASCEND_RT_VISIBLE_DEVICES=1 with ASCEND_SLOG_PRINT_TO_STDOUT=1: not 1 device, or no log line on stdout"; sed 's/^/    /' "$scratch/env-visible.log"; }
  if grep -q 'ascend-run' "$scratch/env-visible.err"; then fail "ASCEND_SLOG_PRINT_TO_STDOUT=1 still logged to stderr"; fi
else
  fail "acl_smoke.c fails with ASCEND_RT_VISIBLE_DEVICES=1"; tail -n 5 "$scratch/env-visible.err"
fi
if (cd "$scratch" && clean ASCEND_GLOBAL_LOG_LEVEL=1 ASCEND_PROCESS_LOG_PATH="$scratch/plog" ./smoke_c_ascendcl) \
     >"$scratch/env-plog.log" 2>&1; then
  plog=$(find "$scratch/plog/debug/plog" -name 'plog-*_*.log' 2>/dev/null | head -n 1)
  [ -n "$plog" ] && grep -q 'initialised from' "$plog" \
    && ok "ASCEND_PROCESS_LOG_PATH: log in ${plog#"$scratch"/}" \
    || fail "ASCEND_PROCESS_LOG_PATH=$scratch/plog wrote no debug/plog/plog-<pid>_<time>.log with the runtime's log"
else
  fail "acl_smoke.c fails with ASCEND_PROCESS_LOG_PATH set"; tail -n 5 "$scratch/env-plog.log"
fi

# ---------------------------------------------------------------------------------------------------
step "5. examples: cc -I$prefix/include examples/<topic>/<topic>.c -L$lib $rpath -lascendcl, run under env -i"
# The line each example prints when it saw what it teaches. An example without an entry fails, so a
# new example cannot go unchecked.
declare -A example_line=(
  [quickstart]="result: OK (0 mismatches)"
  [device_binding]="device binding: OK"
  [async_copy]="async copy: OK"
  [cross_stream_events]="cross-stream events: OK"
  [stream_priority]="stream priorities: OK"
  [memory_info]="memory info: OK"
  [missing_sync]="missing sync: pitfall shown, fix verified"
  [cpp_kernel]="cpp kernel: OK"
  [aclnn_add]="aclnn add: OK"
  [graph_capture]="graph_capture: OK"
)
# A second line per example, on the specific behaviour shown.
declare -A example_detail=(
  [quickstart]="H2D + D2D + memset + D2H of 4 MiB"
  [device_binding]="worker thread: aclrtGetDevice before binding -> 107002 (ACL_ERROR_RT_CONTEXT_NULL, as expected)"
  [async_copy]="stream still pending (the host is free)"
  [cross_stream_events]="consumer stream waits on the event (pending)"
  [stream_priority]="aclrtCreateStreamWithConfig(priority 107) -> aclrtStreamGetPriority 7"
  [memory_info]="(ACL_ERROR_RT_MEMORY_ALLOCATION)"
  [missing_sync]="without synchronizing: 0 of 4194304 bytes are the result"
  [cpp_kernel]="out-of-bounds access -> 507015 (ACL_ERROR_RT_AICORE_EXCEPTION, as expected)"
  [aclnn_add]="aclnnAdd: out = self + 1.2 * other, 8 elements, workspace 512 bytes"
  [graph_capture]="replayed 100 times, 0 wrong elements"
)
examples_found=0
for example_src in "$src_dir"/examples/*/*.c "$src_dir"/examples/*/*.cpp; do
  [ -f "$example_src" ] || continue
  ext=${example_src##*.}
  name=$(basename "$example_src" ".$ext")
  [ "$(basename "$(dirname "$example_src")")" = "$name" ] || continue  # examples/<topic>/<topic>.{c,cpp} only
  examples_found=$((examples_found + 1))
  cp "$example_src" "$scratch/example_$name.$ext"
  if [ -z "${example_line[$name]:-}" ]; then
    fail "examples/$name/$name.$ext has no expected output line in install_test.sh (example_line)"
    continue
  fi
  if [ "$ext" = c ]; then
    build=("$cc_bin" -std=c11)
  else
    build=("$cxx_bin" -std=c++20)
  fi
  if ! run_logged "example-build-$name" "${build[@]}" -Wall -Wextra -Werror -I"$prefix/include" \
         "example_$name.$ext" -L"$lib" "$rpath" -lascendcl -o "example_$name"; then
    fail "examples/$name/$name.$ext does not build with only -I$prefix/include -L$lib $rpath -lascendcl"
    continue
  fi
  if ! run_logged "example-run-$name" "./example_$name"; then
    fail "examples/$name exited non-zero under env -i (see $scratch/example-run-$name.log)"
    continue
  fi
  log="$scratch/example-run-$name.log"
  if ! grep -qxF "${example_line[$name]}" "$log"; then
    fail "examples/$name exited 0 but did not print '${example_line[$name]}'"; sed 's/^/    /' "$log"
  elif [ -n "${example_detail[$name]:-}" ] && ! grep -qF "${example_detail[$name]}" "$log"; then
    fail "examples/$name did not print '${example_detail[$name]}'"; sed 's/^/    /' "$log"
  else
    ok "examples/$name: ${example_line[$name]}"
  fi
done
[ "$examples_found" -ge "${#example_line[@]}" ] || fail "found $examples_found examples, want ${#example_line[@]} (one is missing from examples/)"

# ---------------------------------------------------------------------------------------------------
step "6. an out-of-tree profiler sink (examples/profiler_sink) built against $prefix, loaded by config"
sink_args=(-S "$src_dir/examples/profiler_sink" -B "$scratch/sink" -DCMAKE_PREFIX_PATH="$prefix"
           -DCMAKE_CXX_COMPILER="$cxx_bin")
[ -z "$generator" ] || sink_args+=(-G "$generator")
[ -z "$make_program" ] || sink_args+=(-DCMAKE_MAKE_PROGRAM="$make_program")
sink_so="$scratch/sink/libarun_profiler_counting.so"
if run_logged sink-configure "$cmake_bin" "${sink_args[@]}" && run_logged sink-build "$cmake_bin" --build "$scratch/sink" \
   && [ -f "$sink_so" ]; then
  ok "examples/profiler_sink builds against the install: $sink_so"
  cat >"$scratch/sink.toml" <<TOML
[runtime]
# a plugin's path must lie in a plugin folder
plugin_search_paths = ["$scratch/sink"]

[[plugin]]
kind = "device"
name = "ascend"

[[plugin]]
kind = "profiler"
name = "counting"
path = "$sink_so"
[plugin.options]
file = "$scratch/counts.txt"

[profiler]
enabled = true
sinks = ["counting", "timeline"]
output_dir = "$scratch/sink-profile"
TOML
  if [ -x "$scratch/example_cross_stream_events" ] && \
     run_logged sink-run env ASCEND_RUN_CONFIG="$scratch/sink.toml" ./example_cross_stream_events; then
    counts="$scratch/counts.txt"
    value() { sed -n "s/^$1=//p" "$counts" 2>/dev/null; }
    if [ ! -f "$counts" ]; then
      fail "the counting sink wrote no $counts"
    elif [ "$(value begins)" = 1 ] && [ "$(value devices)" = 2 ] && [ "$(value dropped)" = 0 ] \
         && [ "$(value tasks)" -ge 3 ] && [ "$(value event_records)" -ge 1 ] && [ "$(value event_waits)" -ge 1 ] \
         && [ "$(value api_calls)" -ge 10 ] && [ "$(value streams_with_tasks)" -ge 2 ] \
         && [ "$(value allocs)" -ge 1 ] && [ "$(value allocs)" = "$(value frees)" ]; then
      ok "the counting sink received $(value records) records: $(value tasks) tasks, $(value api_calls) API calls, 0 dropped"
    else
      fail "the counting sink's counts are not what cross_stream_events did:"; sed 's/^/    /' "$counts"
    fi
    ls "$scratch/sink-profile"/timeline-*.json >/dev/null 2>&1 || fail "the timeline sink beside it wrote no file"
  else
    fail "cross_stream_events fails with the counting sink loaded (see $scratch/sink-run.log)"
  fi
else
  fail "examples/profiler_sink does not build against $prefix (see $scratch/sink-configure.log, sink-build.log)"
fi

# ---------------------------------------------------------------------------------------------------
step "7. import acl (pyACL) from $prefix/python/site-packages under env -i"
if [ -n "$sanitize" ]; then
  ok "skipped: an instrumented module cannot load into an uninstrumented interpreter"
elif ! ls "$prefix"/python/site-packages/acl*.so >/dev/null 2>&1; then
  fail "missing $prefix/python/site-packages/acl*.so (pybind11-dev installed? tools/setup.sh installs it)"
elif run_logged pyacl env PYTHONPATH="$prefix/python/site-packages" /usr/bin/python3 -c '
import acl
assert acl.init("") == 0, acl.get_recent_err_msg()
assert acl.rt.set_device(0) == 0, acl.get_recent_err_msg()
data = bytes(range(64))
dev, ret = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
assert ret == 0, acl.get_recent_err_msg()
assert acl.rt.memcpy(dev, 64, acl.util.bytes_to_ptr(data), 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == 0
host, ret = acl.rt.malloc_host(64)
assert acl.rt.memcpy(host, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == 0
assert acl.util.ptr_to_bytes(host, 64) == data
assert acl.rt.free(dev) == 0 and acl.rt.free_host(host) == 0
assert acl.rt.reset_device(0) == 0 and acl.finalize() == 0
print("pyacl round trip: OK")'; then
  ok "import acl from the prefix: a device round trip"
else
  fail "import acl from the prefix failed (see $scratch/pyacl.log)"
fi

# ---------------------------------------------------------------------------------------------------
echo
if [ ${#failures[@]} -eq 0 ]; then
  echo "integration.install: PASS ($prefix)"
  exit 0
fi
echo "integration.install: ${#failures[@]} failure(s):"
printf '  - %s\n' "${failures[@]}"
exit 1
