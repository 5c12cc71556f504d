// JNI binding of org.ntk4j.natives.TorchFlags: libtorch's process-wide TF32 switches, which DJL's own
// binding does not expose. Compiled by `ntk4j native build` against the same torch as DJL's binding.
// at::Context::setAllowTF32CuDNN / setAllowTF32CuBLAS exist from torch 1.7 to 2.x (2.9+ maps them onto
// its float32-precision settings); on a CPU build they only set flags that no CPU kernel reads.
#include <jni.h>

#include <ATen/Context.h>
#include <exception>

static void rethrow(JNIEnv* env, const std::exception& e) {
  jclass c = env->FindClass("java/lang/IllegalStateException");
  if (c != nullptr) {
    env->ThrowNew(c, e.what());
  }
}

extern "C" JNIEXPORT void JNICALL Java_org_ntk4j_natives_TorchFlags_setTf32(
    JNIEnv* env, jclass, jboolean cudnn, jboolean cublas) {
  try {
    at::globalContext().setAllowTF32CuDNN(cudnn == JNI_TRUE);
    at::globalContext().setAllowTF32CuBLAS(cublas == JNI_TRUE);
  } catch (const std::exception& e) {
    rethrow(env, e);
  }
}

// bit 0: cuDNN may use TF32 (convolutions); bit 1: cuBLAS may use TF32 (matrix products)
extern "C" JNIEXPORT jint JNICALL Java_org_ntk4j_natives_TorchFlags_tf32(JNIEnv* env, jclass) {
  try {
    return (at::globalContext().allowTF32CuDNN() ? 1 : 0) | (at::globalContext().allowTF32CuBLAS() ? 2 : 0);
  } catch (const std::exception& e) {
    rethrow(env, e);
    return -1;
  }
}
