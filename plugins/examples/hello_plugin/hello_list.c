/* hello_list.c - lists plugins and devices through the runtime C API and
 * exits 0 when the hello plugin is ready with its one device. */

#include <tessera/dlpack.h>
#include <tessera/runtime.h>

#include <stdio.h>
#include <string.h>

int main(void) {
  tessera_runtime_t runtime;
  tessera_status_t status = tessera_runtime_create(&runtime);
  if (status) {
    fprintf(stderr, "%s\n", tessera_status_message(status));
    tessera_status_free(status);
    return 1;
  }
  uint32_t count = 0;
  int found = 0;
  tessera_status_free(tessera_runtime_plugin_count(runtime, &count));
  for (uint32_t i = 0; i < count; ++i) {
    tessera_plugin_info info;
    if ((status = tessera_runtime_plugin_info(runtime, i, &info))) {
      tessera_status_free(status);
      continue;
    }
    printf("%s: state %d, %u device(s) %s\n", info.manifest_path, info.state,
           info.device_count, info.message);
    if (!strcmp(info.name, "hello") && info.state == TESSERA_PLUGIN_READY &&
        info.device_count == 1)
      found = 1;
  }
  tessera_runtime_destroy(runtime);
  return found ? 0 : 1;
}
