//===- runtime_module.cpp - tessera._runtime: the runtime C API in Python -===//
//
// A thin nanobind layer over tessera/runtime.h (and the compile cache
// lookup of core/cache, which needs no LLVM). It links no MLIR: a process
// that only runs bundles imports this module and never the compiler.
//
// The launch path is the hot one (Python launch overhead is benchmarked in
// bench/python): it takes the kernel's arguments as DLPack capsules and
// Python numbers, wraps each capsule as a runtime buffer without copying
// (tessera_buffer_from_dlpack), launches, and releases the wrappers, which
// hands each tensor back to its framework through the DLPack deleter.
//
//===----------------------------------------------------------------------===//

#include "tessera/dlpack.h"
#include "tessera/runtime.h"

#include "CompileCache.h"
#include "CompileKey.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace nb = nanobind;

namespace {

/// Raised for every failed runtime call; tessera/__init__.py re-exports it
/// as tessera.RuntimeError (a subclass of Python's RuntimeError).
nb::object gRuntimeError;

[[noreturn]] void raise(tessera_status_t status, const std::string &what) {
  std::string msg = what;
  if (status) {
    if (!msg.empty())
      msg += ": ";
    msg += tessera_status_message(status);
    tessera_status_free(status);
  }
  PyErr_SetString(gRuntimeError.ptr(), msg.c_str());
  throw nb::python_error();
}

void check(tessera_status_t status, const char *what = "") {
  if (status)
    raise(status, what);
}

/// The process's runtime: created on first use, never destroyed (plugins
/// stay loaded until the process exits; destroying them from an atexit hook
/// would race with objects Python has not collected yet).
tessera_runtime_t runtimeHandle() {
  static tessera_runtime_t rt = [] {
    tessera_runtime_t r = nullptr;
    check(tessera_runtime_create(&r), "cannot create the tessera runtime");
    return r;
  }();
  return rt;
}

nb::dict deviceInfo(uint32_t index) {
  tessera_device_t dev = nullptr;
  check(tessera_runtime_device(runtimeHandle(), index, &dev));
  tessera_device_info info;
  check(tessera_device_get_info(dev, &info));
  nb::dict d;
  d["index"] = index;
  d["name"] = std::string(info.name);
  d["triple"] = std::string(info.triple);
  d["chip"] = std::string(info.chip);
  d["plugin"] = std::string(info.plugin);
  d["total_memory"] = info.total_memory;
  d["compute_units"] = info.compute_units;
  d["max_threads_per_block"] = info.max_threads_per_block;
  d["max_shared_bytes_per_block"] = info.max_shared_bytes_per_block;
  d["warp_size"] = info.warp_size;
  return d;
}

nb::list devices() {
  uint32_t n = 0;
  check(tessera_runtime_device_count(runtimeHandle(), &n));
  nb::list out;
  for (uint32_t i = 0; i < n; ++i)
    out.append(deviceInfo(i));
  return out;
}

nb::list plugins() {
  uint32_t n = 0;
  check(tessera_runtime_plugin_count(runtimeHandle(), &n));
  nb::list out;
  for (uint32_t i = 0; i < n; ++i) {
    tessera_plugin_info p;
    check(tessera_runtime_plugin_info(runtimeHandle(), i, &p));
    nb::dict d;
    d["name"] = std::string(p.name);
    d["version"] = std::string(p.version);
    d["state"] = p.state == TESSERA_PLUGIN_READY         ? "ready"
                 : p.state == TESSERA_PLUGIN_UNAVAILABLE ? "unavailable"
                                                         : "refused";
    d["message"] = std::string(p.message);
    d["device_count"] = p.device_count;
    out.append(d);
  }
  return out;
}

/// A module loaded from a bundle onto one device.
struct Module {
  tessera_module_t handle = nullptr;
  tessera_device_t device = nullptr;
  std::string name;

  Module(uint32_t deviceIndex, nb::bytes bundle, std::string name)
      : name(std::move(name)) {
    check(tessera_runtime_device(runtimeHandle(), deviceIndex, &device));
    check(tessera_module_load_bundle_memory(
        device, bundle.c_str(), bundle.size(), this->name.c_str(), &handle));
  }
  ~Module() { tessera_module_unload(handle); }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  std::vector<std::string> kernelNames() const {
    std::vector<std::string> out;
    for (uint32_t i = 0, n = tessera_module_kernel_count(handle); i < n; ++i)
      out.push_back(tessera_module_kernel_name(handle, i));
    return out;
  }
};

/// What Kernel.launch expects in one position.
enum SlotKind : int { kTensor = -1 };

/// A kernel of a loaded module. `signature` holds, per argument, kTensor or
/// the tessera_dtype_t of a scalar (how a Python number is passed).
struct Kernel {
  std::shared_ptr<void> moduleKeepAlive;
  tessera_kernel_t handle = nullptr;
  tessera_device_t device = nullptr;
  std::string name;
  std::vector<int> signature;
};

/// Scalars: a Python bool/int/float into the argument's dtype.
tessera_arg scalarArg(nb::handle value, int dtype, const Kernel &k,
                      size_t position) {
  auto bad = [&](const char *what) {
    PyErr_Format(PyExc_TypeError,
                 "kernel '%s': argument %zu must be %s, got %s", k.name.c_str(),
                 position, what, Py_TYPE(value.ptr())->tp_name);
    throw nb::python_error();
  };
  tessera_arg a;
  std::memset(&a, 0, sizeof a);
  a.kind = TESSERA_ARG_SCALAR;
  a.u.scalar.dtype = static_cast<tessera_dtype_t>(dtype);
  switch (dtype) {
  case TESSERA_DTYPE_F32:
  case TESSERA_DTYPE_F64: {
    double v = PyFloat_AsDouble(value.ptr());
    if (v == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      bad("a number");
    }
    if (dtype == TESSERA_DTYPE_F32)
      a.u.scalar.value.f32 = static_cast<float>(v);
    else
      a.u.scalar.value.f64 = v;
    return a;
  }
  case TESSERA_DTYPE_F16:
  case TESSERA_DTYPE_BF16:
  case TESSERA_DTYPE_F8E4M3:
  case TESSERA_DTYPE_F8E5M2:
    // The Python side converts these to their bit pattern (an int).
  default: {
    if (PyFloat_Check(value.ptr()) && dtype != TESSERA_DTYPE_F16 &&
        dtype != TESSERA_DTYPE_BF16 && dtype != TESSERA_DTYPE_F8E4M3 &&
        dtype != TESSERA_DTYPE_F8E5M2)
      bad("an integer");
    long long v = PyLong_AsLongLong(value.ptr());
    if (v == -1 && PyErr_Occurred()) {
      PyErr_Clear();
      bad("an integer");
    }
    a.u.scalar.value.i = v;
    return a;
  }
  }
}

/// torch dtypes -> DLPack dtypes and torch.Tensor's type, registered once by
/// tessera.runtime (set_torch_dtypes), compared by identity on the launch
/// path. The attribute names are interned once.
std::vector<std::pair<PyObject *, DLDataType>> gTorchDtypes;
PyObject *gTorchTensorType = nullptr;
PyObject *gNameDtype, *gNameShape, *gNameStride, *gNameDataPtr, *gNameGetDevice;

/// A torch tensor as a DLPack view borrowed for one launch: the hot path of
/// kernel(*torch_tensors) (no capsule, no deleter; the caller's tensors
/// outlive the call). Reads dtype, shape, stride(), get_device() and
/// data_ptr() through the C API. False with a Python error set otherwise.
struct BorrowedTensor {
  DLManagedTensor managed;
  int64_t shape[TESSERA_MAX_RANK], strides[TESSERA_MAX_RANK];
};

bool borrowTorchTensor(PyObject *t, BorrowedTensor &out, const Kernel &k,
                       size_t index) {
  DLTensor &d = out.managed.dl_tensor;
  PyObject *dtype = PyObject_GetAttr(t, gNameDtype);
  if (!dtype)
    return false;
  bool known = false;
  for (auto &[obj, dl] : gTorchDtypes)
    if (obj == dtype) {
      d.dtype = dl;
      known = true;
      break;
    }
  if (!known) {
    PyErr_Format(PyExc_TypeError,
                 "kernel '%s': argument %zu has dtype %S, which tessera has "
                 "no type for",
                 k.name.c_str(), index, dtype);
    Py_DECREF(dtype);
    return false;
  }
  Py_DECREF(dtype);
  PyObject *shape = PyObject_GetAttr(t, gNameShape);
  if (!shape)
    return false;
  if (!PyTuple_Check(shape) || PyTuple_GET_SIZE(shape) > TESSERA_MAX_RANK) {
    PyErr_Format(PyExc_ValueError,
                 "kernel '%s': argument %zu has shape %S: a tuple of at most "
                 "%d dims expected",
                 k.name.c_str(), index, shape, TESSERA_MAX_RANK);
    Py_DECREF(shape);
    return false;
  }
  Py_ssize_t rank = PyTuple_GET_SIZE(shape);
  PyObject *stride = PyObject_CallMethodNoArgs(t, gNameStride);
  if (!stride || !PyTuple_Check(stride) || PyTuple_GET_SIZE(stride) != rank) {
    if (stride || !PyErr_Occurred())
      PyErr_Format(PyExc_ValueError,
                   "kernel '%s': argument %zu: stride() does not match its "
                   "shape",
                   k.name.c_str(), index);
    Py_XDECREF(stride);
    Py_DECREF(shape);
    return false;
  }
  for (Py_ssize_t i = 0; i < rank; ++i) {
    out.shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    out.strides[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(stride, i));
  }
  Py_DECREF(stride);
  Py_DECREF(shape);
  PyObject *dev = PyObject_CallMethodNoArgs(t, gNameGetDevice);
  if (!dev)
    return false;
  long device = PyLong_AsLong(dev);
  Py_DECREF(dev);
  PyObject *ptr = PyObject_CallMethodNoArgs(t, gNameDataPtr);
  if (!ptr)
    return false;
  d.data = PyLong_AsVoidPtr(ptr);
  Py_DECREF(ptr);
  if (PyErr_Occurred())
    return false;
  d.device.device_type = device < 0 ? kDLCPU : kDLCUDA;
  d.device.device_id = device < 0 ? 0 : static_cast<int32_t>(device);
  d.ndim = static_cast<int32_t>(rank);
  d.shape = out.shape;
  d.strides = out.strides;
  d.byte_offset = 0;
  out.managed.manager_ctx = nullptr;
  out.managed.deleter = nullptr;
  return true;
}

/// Buffers wrapped for one launch; released (DLPack deleters run) on exit.
struct LaunchBuffers {
  std::vector<tessera_buffer_t> buffers;
  ~LaunchBuffers() {
    for (tessera_buffer_t b : buffers)
      tessera_buffer_release(b);
  }
};

void launch(Kernel &k, nb::sequence args, uintptr_t stream) {
  size_t n = nb::len(args);
  if (n != k.signature.size()) {
    PyErr_Format(PyExc_TypeError, "kernel '%s' takes %zu arguments, got %zu",
                 k.name.c_str(), k.signature.size(), n);
    throw nb::python_error();
  }
  tessera_arg argv[32];
  std::vector<tessera_arg> big;
  tessera_arg *a = argv;
  if (n > 32) {
    big.resize(n);
    a = big.data();
  }
  // Borrowed torch views live until after `held` releases their buffers.
  BorrowedTensor borrowedSmall[8];
  std::vector<BorrowedTensor> borrowedBig;
  BorrowedTensor *borrowed = borrowedSmall;
  if (n > 8) {
    borrowedBig.resize(n);
    borrowed = borrowedBig.data();
  }
  LaunchBuffers held;
  held.buffers.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    nb::handle item = args[i];
    if (k.signature[i] == kTensor && gTorchTensorType &&
        Py_TYPE(item.ptr()) ==
            reinterpret_cast<PyTypeObject *>(gTorchTensorType)) {
      if (!borrowTorchTensor(item.ptr(), borrowed[i], k, i))
        throw nb::python_error();
      tessera_buffer_t buffer = nullptr;
      if (tessera_status_t s = tessera_buffer_from_dlpack(
              k.device, &borrowed[i].managed, &buffer, &a[i]))
        raise(s, "kernel '" + k.name + "': argument " + std::to_string(i));
      held.buffers.push_back(buffer);
      continue;
    }
    if (k.signature[i] == kTensor) {
      if (!PyCapsule_IsValid(item.ptr(), "dltensor")) {
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': argument %zu must be a DLPack capsule "
                     "(an unused 'dltensor')",
                     k.name.c_str(), i);
        throw nb::python_error();
      }
      auto *managed = static_cast<DLManagedTensor *>(
          PyCapsule_GetPointer(item.ptr(), "dltensor"));
      tessera_buffer_t buffer = nullptr;
      tessera_status_t s =
          tessera_buffer_from_dlpack(k.device, managed, &buffer, &a[i]);
      if (s)
        raise(s, "kernel '" + k.name + "': argument " + std::to_string(i));
      // The runtime owns the tensor now; the capsule must not delete it.
      PyCapsule_SetName(item.ptr(), "used_dltensor");
      held.buffers.push_back(buffer);
    } else {
      a[i] = scalarArg(item, k.signature[i], k, i);
    }
  }
  tessera_status_t s;
  {
    nb::gil_scoped_release release;
    s = tessera_kernel_launch(k.handle,
                              reinterpret_cast<tessera_stream_t>(stream), a,
                              static_cast<uint32_t>(n));
  }
  if (s)
    raise(s, "");
}

/// The compile cache entry for `source` compiled for `targets`, or None:
/// the key the compiler library computes (CompileKey.h) over the compiler
/// plugins found beside the runtime. Lets a process answer a cached compile
/// without loading libMLIR.
nb::object cacheLookup(const std::string &source,
                       const std::vector<std::string> &targets, int optLevel,
                       const std::string &pluginDir) {
  tessera::CompileCache cache;
  if (!cache.enabled())
    return nb::none();
  std::vector<tessera::TargetSpec> specs;
  std::vector<std::string> list = targets;
  if (list.empty())
    list.push_back(tessera::hostTriple());
  for (const std::string &t : list) {
    tessera::TargetSpec spec;
    std::string error;
    if (!tessera::splitTargetSpec(t, spec, error))
      return nb::none();
    specs.push_back(spec);
  }
  std::string key = tessera::compileCacheKey(
      source, optLevel, specs,
      tessera::CompilerPluginIndex::fromSearchPath(pluginDir));
  std::string bytes;
  if (cache.get(key, bytes) != tessera::CompileCache::Lookup::Hit)
    return nb::none();
  return nb::bytes(bytes.data(), bytes.size());
}

} // namespace

NB_MODULE(_runtime, m) {
  m.doc() = "tessera runtime C API (no MLIR)";
  gRuntimeError = nb::borrow(PyExc_RuntimeError);
  m.def("set_error_type", [](nb::object type) { gRuntimeError = type; });
  m.def("devices", &devices, "The devices of every ready plugin.");
  m.def("plugins", &plugins, "Every plugin manifest found and its state.");
  m.def("host_triple", [] { return tessera::hostTriple(); });
  m.def("library_dir", [] {
    // The folder of libtessera_runtime.so: plugins live in tessera/plugins
    // below it, and the compiler library beside it.
    Dl_info info;
    if (!dladdr(reinterpret_cast<void *>(&tessera_runtime_create), &info) ||
        !info.dli_fname)
      return std::string();
    std::string path = info.dli_fname;
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string(".")
                                      : path.substr(0, slash);
  });
  m.def(
      "set_torch_dtypes",
      [](nb::handle tensorType, nb::list pairs) {
        // torch.Tensor and [(torch.dtype, (DLPack code, bits)), ...]; kept
        // alive (one reference each, never dropped).
        if (!gNameDtype) {
          gNameDtype = PyUnicode_InternFromString("dtype");
          gNameShape = PyUnicode_InternFromString("shape");
          gNameStride = PyUnicode_InternFromString("stride");
          gNameDataPtr = PyUnicode_InternFromString("data_ptr");
          gNameGetDevice = PyUnicode_InternFromString("get_device");
        }
        Py_INCREF(tensorType.ptr());
        gTorchTensorType = tensorType.ptr();
        gTorchDtypes.clear();
        for (nb::handle p : pairs) {
          nb::tuple t = nb::cast<nb::tuple>(p);
          nb::tuple dl = nb::cast<nb::tuple>(t[1]);
          DLDataType d;
          d.code = nb::cast<uint8_t>(dl[0]);
          d.bits = nb::cast<uint8_t>(dl[1]);
          d.lanes = 1;
          Py_INCREF(t[0].ptr());
          gTorchDtypes.push_back({t[0].ptr(), d});
        }
      },
      nb::arg("tensor_type"), nb::arg("pairs"),
      "Registers torch.Tensor and its dtypes so that launches take torch "
      "tensors "
      "directly (borrowed for the call, no DLPack capsule).");
  m.def("cache_lookup", &cacheLookup, nb::arg("source"), nb::arg("targets"),
        nb::arg("opt_level"), nb::arg("plugin_dir"));
  m.def(
      "wrap_stream",
      [](uint32_t deviceIndex, uintptr_t native) {
        tessera_device_t dev = nullptr;
        check(tessera_runtime_device(runtimeHandle(), deviceIndex, &dev));
        tessera_stream_t stream = nullptr;
        check(tessera_stream_wrap(dev, reinterpret_cast<void *>(native),
                                  &stream));
        return reinterpret_cast<uintptr_t>(stream);
      },
      nb::arg("device"), nb::arg("native"),
      "A tessera stream handle over a native stream (a CUstream).");
  m.def(
      "destroy_stream",
      [](uintptr_t stream) {
        tessera_stream_destroy(reinterpret_cast<tessera_stream_t>(stream));
      },
      nb::arg("stream"));
  m.def("dtype_name", [](int d) {
    return std::string(tessera_dtype_name(static_cast<tessera_dtype_t>(d)));
  });

  nb::class_<Module>(m, "Module")
      .def(nb::init<uint32_t, nb::bytes, std::string>(), nb::arg("device"),
           nb::arg("bundle"), nb::arg("name"))
      .def_prop_ro("kernel_names", &Module::kernelNames);

  nb::class_<Kernel>(m, "Kernel")
      .def(
          "__init__",
          [](Kernel *self, nb::object moduleObj, const std::string &name,
             std::vector<int> signature) {
            Module &module = nb::cast<Module &>(moduleObj);
            new (self) Kernel();
            check(tessera_module_get_kernel(module.handle, name.c_str(),
                                            &self->handle));
            self->device = module.device;
            self->name = name;
            self->signature = std::move(signature);
            // Keep the module (and so the loaded image) alive.
            PyObject *held = moduleObj.ptr();
            Py_INCREF(held);
            self->moduleKeepAlive = std::shared_ptr<void>(held, [](void *p) {
              nb::gil_scoped_acquire gil;
              Py_DECREF(static_cast<PyObject *>(p));
            });
          },
          nb::arg("module"), nb::arg("name"), nb::arg("signature"))
      .def_ro("name", &Kernel::name)
      .def_ro("signature", &Kernel::signature)
      .def("launch", &launch, nb::arg("args"), nb::arg("stream") = 0,
           "Launches with DLPack capsules (tensors) and numbers (scalars).");
}
