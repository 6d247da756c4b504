# SPDX-License-Identifier: BSD-3-Clause
# Tensor-core GEMM rungs: the accuracy test of the TF32 rungs compares with cuBLAS (FP32 SGEMM
# and an FP64 DGEMM reference on the GPU), so it links cuBLAS. The test target itself comes
# from the test_*_gpu.c glob in tests/CMakeLists.txt (label gpu, exit 77 without a GPU).
if(TARGET test_tf32_accuracy_gpu)
  target_link_libraries(test_tf32_accuracy_gpu PRIVATE CUDA::cublas)
endif()
