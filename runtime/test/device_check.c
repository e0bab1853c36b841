/* fw-device-check MODULE.fwb FUNCTION_EXECUTABLE: runs one NVIDIA kernel of a fat binary
 * directly through the CUDA device (device_cuda.c), without the scheduler: it picks the
 * image for the GPU (offload.c), loads it, launches the executable's kernel on a vector of
 * N floats (bindings: input, output, both of shape N) and checks out[i] == in[i] + in[i],
 * the program of test/runtime/device_check.mlir. It also times the kernel with events and
 * checks copies and zero fills. Prints "skipped: ..." and exits 0 where there is no CUDA
 * device. For scripts/gpu-check.sh, which runs it on the GPU node. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "device_cuda.h"
#include "fwb_reader.h"
#include "metadata.h"
#include "offload.h"

static int fail(const char *what, fw_status_t s) {
  printf("FAIL %s: %s\n", what, s ? fw_status_message(s) : "");
  fw_status_free(s);
  return 1;
}

static int run(fw_device_t *dev, const fw_metadata_t *md, const fw_fwb_view_t *view,
               uint32_t exe) {
  const fw_device_vtable_t *v = dev->vtable;
  fw_device_info_t info;
  fw_status_t s = v->query(dev, &info);
  if (s) return fail("query", s);
  printf("device: %s, %s, %u SMs, %.1f GiB\n", info.name, info.arch, info.compute_units,
         (double)info.memory_bytes / (double)(1ull << 30));
  int64_t vi = -1, ii = -1;
  fw_select_cuda_image(md, exe, info.arch, &vi, &ii);
  if (vi < 0) {
    printf("FAIL no image of @%s fits %s\n", md->executables[exe].name, info.arch);
    return 1;
  }
  const fw_md_image_t *im = &md->images[ii];
  fw_offload_image_t image;
  s = fw_offload_parse(view->offload + im->offset, im->size, &image);
  if (s) return fail("reading the image", s);
  printf("image %lld: %s for %s\n", (long long)ii,
         image.image_kind == FW_OFFLOAD_IMAGE_CUBIN ? "cubin" : "ptx", image.arch);
  /* PTX must be NUL-terminated for the driver. */
  char *copy = malloc(image.size + 1);
  if (!copy) return fail("out of memory", NULL);
  memcpy(copy, image.data, image.size);
  copy[image.size] = '\0';
  fw_device_module_t *module = NULL;
  const void *kernel = NULL;
  s = v->module_load(dev, copy, image.size, &module);
  free(copy);
  if (!s) s = v->module_get_kernel(dev, module, md->variants[vi].kernel, &kernel);
  if (s) return fail("loading the kernel", s);

  const int64_t n = 1 << 20;
  size_t bytes = (size_t)n * sizeof(float);
  float *in = malloc(bytes), *out = malloc(bytes);
  void *din = NULL, *dout = NULL;
  if (!in || !out) return fail("out of memory", NULL);
  for (int64_t i = 0; i < n; ++i) in[i] = (float)(i % 1000) * 0.5f;
  s = v->alloc(dev, bytes, &din);
  if (!s) s = v->alloc(dev, bytes, &dout);
  if (!s) s = v->copy_to_device(dev, NULL, din, in, bytes);
  if (!s) s = v->fill_zero(dev, dout, bytes);
  if (!s) s = v->copy_to_host(dev, NULL, out, dout, bytes);
  if (s) return fail("memory", s);
  for (int64_t i = 0; i < n; ++i)
    if (out[i] != 0.0f) return fail("fill_zero left a nonzero value", NULL);

  int64_t dims[1] = {n};
  fw_device_binding_t bindings[2] = {{din, 1, dims}, {dout, 1, dims}};
  fw_device_launch_t launch;
  memset(&launch, 0, sizeof(launch));
  launch.kernel.image = kernel;
  launch.num_bindings = 2;
  launch.bindings = bindings;
  for (int k = 0; k < 3; ++k) {
    launch.workgroup_count[k] = 1;
    launch.workgroup_size[k] = md->variants[vi].workgroup_size[k];
  }
  fw_device_event_t *start = NULL, *end = NULL;
  s = v->event_create(dev, &start);
  if (!s) s = v->event_create(dev, &end);
  if (!s) s = v->launch(dev, NULL, &launch); /* warm-up: loads the module on the GPU */
  if (!s) s = v->event_record(dev, start, NULL);
  if (!s) s = v->launch(dev, NULL, &launch);
  if (!s) s = v->event_record(dev, end, NULL);
  if (!s) s = v->event_synchronize(dev, end);
  double seconds = 0;
  if (!s) s = v->event_elapsed(dev, start, end, &seconds);
  if (!s) s = v->copy_to_host(dev, NULL, out, dout, bytes);
  if (s) return fail("launch", s);
  for (int64_t i = 0; i < n; ++i)
    if (out[i] != in[i] + in[i]) {
      printf("FAIL out[%lld] = %g, expected %g\n", (long long)i, out[i], in[i] + in[i]);
      return 1;
    }
  printf("PASS @%s on %s: %lld elements, %.1f us, %.0f GB/s\n", md->executables[exe].name,
         info.arch, (long long)n, seconds * 1e6, seconds > 0 ? 2.0 * (double)bytes / seconds * 1e-9 : 0.0);
  v->event_destroy(dev, start);
  v->event_destroy(dev, end);
  v->free(dev, din, bytes);
  v->free(dev, dout, bytes);
  v->module_unload(dev, module);
  free(in);
  free(out);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fw-device-check MODULE.fwb EXECUTABLE\n");
    return 2;
  }
  uint8_t *data = NULL;
  size_t size = 0;
  fw_status_t s = fw_read_file(argv[1], &data, &size);
  if (s) return fail(argv[1], s);
  fw_fwb_view_t view;
  fw_metadata_t md;
  s = fw_fwb_parse(data, size, &view);
  if (!s) s = fw_metadata_parse(view.meta, view.meta_size, FW_HOST_ABI_VERSION, &md);
  if (s) return fail(argv[1], s);
  uint32_t exe = 0;
  while (exe < md.num_executables && strcmp(md.executables[exe].name, argv[2]) != 0) ++exe;
  if (exe == md.num_executables) {
    printf("FAIL %s has no executable @%s\n", argv[1], argv[2]);
    return 1;
  }
  fw_device_t **gpus = NULL;
  size_t count = 0;
  char why[256];
  s = fw_cuda_discover(&gpus, &count, why, sizeof(why));
  if (s) return fail("discovery", s);
  if (!count) {
    printf("skipped: no CUDA device (%s)\n", why);
    fw_metadata_free(&md);
    free(data);
    return 0;
  }
  int rc = 0;
  for (size_t i = 0; i < count; ++i) {
    rc |= run(gpus[i], &md, &view, exe);
    gpus[i]->vtable->destroy(gpus[i]);
  }
  free(gpus);
  fw_metadata_free(&md);
  free(data);
  return rc;
}
