// Facts fixed at build time: generated from build_info.cpp.in when CMake configures, and
// git_sha from cmake/write_git_sha.cmake on every build (generated/git_sha.cpp).
#pragma once

namespace gpb::build_info {
extern const char* const version;
extern const char* const git_sha;  // HEAD of the source tree when built, or "unknown"
extern const char* const build_type;
extern const char* const compiler;
extern const char* const default_suite;  // configs/default.json, embedded
extern const bool have_cuda;
extern const bool have_nvtx;
}  // namespace gpb::build_info
