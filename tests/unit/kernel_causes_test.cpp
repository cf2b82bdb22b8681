// The table of PyTorch's well-known kernels and their usual causes (src/diagnose/kernel_causes):
// each row is matched by the name of a real kernel of PyTorch's, as the launch ring gives it
// (demangled, or mangled where the symbol was too long to keep whole), and a kernel it does not
// know gives nothing.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "diagnose/kernel_causes.h"

namespace cublasspy::diagnoses {
namespace {

struct Known {
  const char* kernel;     // a real kernel's symbol, as PyTorch's CUDA build names it
  const char* name;       // the row's name it matches
  const char* operation;  // a word of the row's operation
  const char* cause;      // a word of the row's cause
};

// Demangled as __cxa_demangle writes them (compute-sanitizer and the field's reports show the same).
const Known kKnown[] = {
    {"void at::native::(anonymous namespace)::indexSelectSmallIndex<float, long, unsigned int, 2, 2, -2>("
     "at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float const, unsigned int>, "
     "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, long)",
     "indexSelectSmallIndex", "embedding", "num_embeddings"},
    {"void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::Half, long, unsigned int, 2, 2, -2, true>("
     "at::cuda::detail::TensorInfo<c10::Half, unsigned int>, at::cuda::detail::TensorInfo<c10::Half const, unsigned int>, "
     "at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, unsigned int, long)",
     "indexSelectLargeIndex", "index_select", "num_embeddings"},
    {"void at::native::vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)",
     "vectorized_gather_kernel", "x[idx]", "size of the dimension"},
    {"void at::native::(anonymous namespace)::EmbeddingBag_updateOutputKernel_sum_mean<float, long>(long const*, "
     "long const*, float const*, float*, long*, long, long, long, long, long, float const*, long, long)",
     "EmbeddingBag_", "EmbeddingBag", "offsets"},
    {"void at::native::(anonymous namespace)::embedding_backward_feature_kernel<float, float, long>(long const*, "
     "float const*, float*, int, long, int)",
     "embedding_backward", "backward", "num_embeddings"},
    {"void at::native::(anonymous namespace)::indexing_backward_kernel<float, 4>(long const*, long const*, float const*, "
     "float*, long, long, long, long, bool)",
     "indexing_backward_kernel", "accumulate=True", "index"},
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_put_kernel_impl<"
     "at::native::OpaqueType<4> >(at::TensorIterator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, char "
     "const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>, at::native::index_put_kernel_"
     "impl<at::native::OpaqueType<4> >(at::TensorIterator&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, "
     "char const*, long)#1} const&, bool)::{lambda(int)#1}>(long, at::native::gpu_index_kernel<at::native::index_put_"
     "kernel_impl<at::native::OpaqueType<4> >)::{lambda(int)#1})",
     "index_put_kernel_impl", "index_put_", "index out of bounds"},
    {"void at::native::(anonymous namespace)::indexFuncSmallIndex<float, long, unsigned int, 2, 2, -2, "
     "at::native::ReduceAdd>(at::cuda::detail::TensorInfo<float, unsigned int>, at::cuda::detail::TensorInfo<float "
     "const, unsigned int>, at::cuda::detail::TensorInfo<long const, unsigned int>, int, int, unsigned int, long, "
     "at::native::ReduceAdd const&, float)",
     "indexFuncSmallIndex", "index_add_", "dstAddDimSize"},
    {"void at::native::index_elementwise_kernel<128, 4, at::native::gpu_index_kernel<at::native::index_kernel_impl<"
     "at::native::OpaqueType<4> >(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(char*, "
     "char const*, long)#1}>(at::TensorIteratorBase&, c10::ArrayRef<long>, c10::ArrayRef<long>)::{lambda(int)#1}>("
     "long, ...)",
     "index_elementwise_kernel", "advanced indexing", "index out of bounds"},
    {"void at::native::_scatter_gather_elementwise_kernel<128, 4, at::native::_cuda_scatter_gather_internal_kernel<"
     "false, float>::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, "
     "at::native::TensorAssign const&)::{lambda(int)#1}>(int, at::native::_cuda_scatter_gather_internal_kernel<false, "
     "float>::operator()<at::native::TensorAssign>(at::TensorIterator&, long, long, long, at::native::TensorAssign "
     "const&)::{lambda(int)#1})",
     "scatter_gather", "gather", "index out of bounds"},
    {"void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d<float, float, long>(float*, "
     "float*, float const*, long const*, float const*, bool, long, long, long, long)",
     "nll_loss", "cross_entropy", "t < n_classes"},
    {"void at::native::(anonymous namespace)::nll_loss2d_forward_kernel<float, float, long>(float*, float*, float "
     "const*, long const*, float const*, int, int, int, int, long)",
     "nll_loss", "CrossEntropyLoss", "number of classes"},
    {"void at::native::vectorized_elementwise_kernel<4, at::native::binary_cross_entropy_out_cuda(at::Tensor const&, "
     "at::Tensor const&, std::optional<at::Tensor> const&, long, at::Tensor&)::{lambda()#1}::operator()() "
     "const::{lambda()#2}::operator()() const::{lambda(float, float)#1}, std::array<char*, 3ul> >(int, "
     "at::native::binary_cross_entropy_out_cuda(...)::{lambda(float, float)#1}, std::array<char*, 3ul>)",
     "binary_cross_entropy", "BCELoss", "sigmoid"},
    {"void at::native::(anonymous namespace)::ctc_loss_log_alpha_gpu_kernel<float, long>(float*, float const*, long "
     "const*, long, long const*, long const*, long, float*, long, long, long, long, long, long, long const*, long, "
     "long, long)",
     "ctc_loss", "ctc_loss", "blank"},
    {"void at::native::_assert_async_cuda_kernel<bool>(bool const*, at::native::Msg)",
     "_assert_async_cuda_kernel", "multinomial", "NaN"},
    {"void at::native::(anonymous namespace)::sampleMultinomialOnce<float, float>(long*, long, int, float const*, "
     "float const*, int, int)",
     "Multinomial", "multinomial", "sums to zero"},
    {"void at::native::(anonymous namespace)::multinomialWithReplacement<float, float>(...)",
     "multinomial", "multinomial", "negative"},
    {"void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4, "
     "at::native::templates::cuda::bernoulli_tensor_cuda_kernel<float, float>(at::TensorBase const&, "
     "at::TensorBase const&, at::PhiloxCudaState)::{lambda(...)#1}>(long, at::PhiloxCudaState, ...)",
     "bernoulli_tensor_cuda_kernel", "bernoulli", "[0, 1]"},
};

TEST(KernelCauses, EachRowIsMatchedByARealKernel) {
  std::set<const KernelCause*> matched;
  for (const Known& k : kKnown) {
    const KernelCause* row = kernel_cause(k.kernel);
    ASSERT_NE(row, nullptr) << k.kernel;
    EXPECT_EQ(kernel_cause_name(*row, k.kernel), k.name) << k.kernel;
    EXPECT_NE(row->operation.find(k.operation), std::string_view::npos) << k.kernel << ": " << row->operation;
    const bool said = row->cause.find(k.cause) != std::string_view::npos || row->check.find(k.cause) != std::string_view::npos;
    EXPECT_TRUE(said) << k.kernel << ": " << row->cause << " / " << row->check;
    matched.insert(row);
  }
  EXPECT_EQ(matched.size(), kernel_causes().size()) << "a row no real kernel's name matches";
}

// The launch ring keeps the mangled symbol when it was too long to demangle whole: the names
// are found in it all the same.
TEST(KernelCauses, TruncatedMangledNamesMatch) {
  const char* mangled =
      "_ZN2at6native12_GLOBAL__N_121indexSelectSmallIndexIflLi2ELi2ELin2EEEvNS_4cuda6detail10TensorInfoIT_T1_EENS5_IKS6_"
      "S7_EENS5_IKT0_S7_EEiiS7_l";
  const KernelCause* row = kernel_cause(mangled);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(kernel_cause_name(*row, mangled), "indexSelectSmallIndex");
  const char* cut = "_ZN2at6native24index_elementwise_kernelILi128ELi4EZNS0_16gpu_index_kernelIZNS0_21index_put_kernel_"
                    "implINS0_10OpaqueTypeILi8EEEEEvRNS_14TensorIter";
  row = kernel_cause(cut);
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(kernel_cause_name(*row, cut), "index_put_kernel_impl");
}

TEST(KernelCauses, UnknownKernelsGiveNothing) {
  for (const char* kernel : {
           "gather_rows(float const*, int const*, float*, int)",  // a program's own, sharing a word
           "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >("
           "int, at::native::FillFunctor<float>, std::array<char*, 1ul>)",
           "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
           "at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>(float*, float const*, int)",
           "void flashinfer::sampling::TopPRenormProbKernel<1024, (cub::BlockScanAlgorithm)0>(float*, float*, float*, "
           "float, unsigned int)",
           "indexSelectSmallIndex(float*, long const*)",  // not PyTorch's: outside at::native
           "ampere_sgemm_128x64_nn", "",
       }) {
    EXPECT_EQ(kernel_cause(kernel), nullptr) << kernel;
  }
}

TEST(KernelCauses, AdviceNamesTheKernelTheOperationAndTheCheck) {
  const std::string kernel =
      "void at::native::(anonymous namespace)::indexSelectSmallIndex<float, long, unsigned int, 2, 2, -2>(...)";
  const KernelCause* row = kernel_cause(kernel);
  ASSERT_NE(row, nullptr);
  const std::string advice = kernel_cause_advice(kernel, *row);
  EXPECT_EQ(advice.rfind("indexSelectSmallIndex is PyTorch's kernel for an embedding lookup or index_select", 0), 0u)
      << advice;
  EXPECT_NE(advice.find("num_embeddings"), std::string::npos) << advice;
  EXPECT_NE(advice.find("resize_token_embeddings"), std::string::npos) << advice;
  EXPECT_EQ(advice.find("lda"), std::string::npos) << advice;
}

}  // namespace
}  // namespace cublasspy::diagnoses
