// Facts fixed at build time (generated from build_info.cpp.in by CMake).
#pragma once

namespace gpb::build_info {
extern const char* const version;
extern const char* const git_sha;
extern const char* const build_type;
extern const char* const compiler;
extern const char* const default_suite;  // configs/default.json, embedded
extern const bool have_cuda;
extern const bool have_nvtx;
}  // namespace gpb::build_info
