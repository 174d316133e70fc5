//===- Status.cpp - tessera_status_t --------------------------------------===//

#include "Internal.h"

namespace tessera::runtime {

tessera_status_t makeStatus(tessera_status_code_t code, std::string message) {
  if (code == TESSERA_OK)
    return nullptr;
  // A status must never be lost to a failed allocation of itself; nothrow
  // new returning null would read as success, so let bad_alloc terminate.
  return new tessera_status_s{code, std::move(message)};
}

tessera_status_t pluginStatus(int code, const char *message,
                              const std::string &context) {
  if (code == TESSERA_PLUGIN_OK)
    return nullptr;
  tessera_status_code_t mapped = TESSERA_INTERNAL;
  switch (code) {
  case TESSERA_PLUGIN_ERROR_UNAVAILABLE:
    mapped = TESSERA_UNAVAILABLE;
    break;
  case TESSERA_PLUGIN_ERROR_INVALID:
    mapped = TESSERA_INVALID_ARGUMENT;
    break;
  case TESSERA_PLUGIN_ERROR_OUT_OF_MEMORY:
    mapped = TESSERA_OUT_OF_MEMORY;
    break;
  case TESSERA_PLUGIN_ERROR_BAD_IMAGE:
    mapped = TESSERA_BAD_BUNDLE;
    break;
  case TESSERA_PLUGIN_ERROR_NOT_FOUND:
    mapped = TESSERA_NOT_FOUND;
    break;
  case TESSERA_PLUGIN_ERROR_LAUNCH:
    mapped = TESSERA_LAUNCH_FAILED;
    break;
  default:
    break;
  }
  std::string text = message && message[0] ? message : "no reason given";
  return makeStatus(mapped, context + ": " + text);
}

} // namespace tessera::runtime

extern "C" {

tessera_status_code_t tessera_status_code(tessera_status_t status) {
  return status ? status->code : TESSERA_OK;
}

const char *tessera_status_message(tessera_status_t status) {
  return status ? status->message.c_str() : "";
}

void tessera_status_free(tessera_status_t status) { delete status; }

} // extern "C"
