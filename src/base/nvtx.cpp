#include "base/nvtx.hpp"

#ifdef GPUBENCH_HAVE_NVTX
#include <nvtx3/nvToolsExt.h>
#endif

namespace gpb::nvtx {

#ifdef GPUBENCH_HAVE_NVTX
namespace {
struct GpubenchDomain {
  static constexpr const char* name = "gpubench";
};

nvtxDomainHandle_t domain() {
  static const nvtxDomainHandle_t handle = nvtxDomainCreateA(GpubenchDomain::name);
  return handle;
}

void push(const char* name) {
  nvtxEventAttributes_t attributes{};
  attributes.version = NVTX_VERSION;
  attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = name;
  nvtxDomainRangePushEx(domain(), &attributes);
}
}  // namespace

void initialize() {
  nvtxInitialize(nullptr);
  domain();
}
ScopedRange::ScopedRange(const std::string& name) { push(name.c_str()); }
ScopedRange::ScopedRange(const char* name) { push(name); }
ScopedRange::~ScopedRange() { nvtxDomainRangePop(domain()); }
bool enabled() { return true; }
#else
void initialize() {}
ScopedRange::ScopedRange(const std::string&) {}
ScopedRange::ScopedRange(const char*) {}
ScopedRange::~ScopedRange() = default;
bool enabled() { return false; }
#endif

}  // namespace gpb::nvtx
