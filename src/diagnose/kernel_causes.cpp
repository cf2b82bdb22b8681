#include "diagnose/kernel_causes.h"

#include <algorithm>

#include <fmt/format.h>

namespace cublasspy::diagnoses {
namespace {

// The rows. Names are those of PyTorch's CUDA sources (aten/src/ATen/native/cuda: Indexing.cu,
// IndexKernel.cu, IndexKernelUtils.cu, ScatterGatherKernel.cu, Embedding*.cu, Loss.cu,
// NLLLoss2d.cu, LossCTC.cu, MultinomialKernel.cu, TensorCompare.cu, DistributionTemplates.h); the
// causes are those public reports of their asserts name most. A kernel matches the first row that has one of its names, so the more specific
// names come first (index_put before index, indexing_backward before indexing).
constexpr KernelCause kRows[] = {
    {{"indexSelectSmallIndex", "indexSelectLargeIndex"},
     "an embedding lookup or index_select",
     "an index at or above the size of the table it selects from (for an embedding, an id at or "
     "above num_embeddings), or a negative one (assert `srcIndex < srcSelectDimSize`)",
     "that every index is in [0, num_embeddings): input ids against the embedding's vocabulary "
     "size (after tokenizer.add_tokens, resize the model's embeddings with "
     "model.resize_token_embeddings(len(tokenizer)); a tokenizer of another model gives ids the "
     "table lacks), and position ids against max_position_embeddings (a sequence longer than the "
     "model allows, or padding added to it)"},
    {{"vectorized_gather_kernel"},
     "an indexing with a tensor of indices (x[idx], index_select, an embedding lookup)",
     "an index at or above the size of the dimension it indexes, or below minus that size "
     "(assert \"vectorized gather kernel index out of bounds\")",
     "that the indices are below the size of the dimension indexed: for an embedding, ids below "
     "num_embeddings (model.resize_token_embeddings(len(tokenizer)) after add_tokens) and "
     "positions below max_position_embeddings; for other indices, the code that computed them "
     "(an off-by-one, a -1 placeholder, a stale size)"},
    {{"EmbeddingBag_", "embedding_bag"},
     "an EmbeddingBag lookup",
     "an index at or above num_embeddings, or offsets that do not fit the indices",
     "that the indices are in [0, num_embeddings) and the offsets start at 0, rise, and stay "
     "within the indices"},
    {{"embedding_backward"},
     "an embedding's backward pass",
     "an index at or above num_embeddings in the forward pass's input",
     "that the ids given to the embedding are below num_embeddings (after tokenizer.add_tokens, "
     "model.resize_token_embeddings(len(tokenizer)))"},
    {{"indexing_backward_kernel"},
     "an index_put_ with accumulate=True, or the backward pass of an indexing x[idx]",
     "an index at or above the size of the dimension it indexes",
     "that the indices are below the size of the dimension indexed (and no -1 placeholder left "
     "in them)"},
    {{"index_put_kernel_impl"},
     "an index_put_ or an assignment x[idx] = value",
     "an index at or above the size of the dimension it indexes, or below minus that size "
     "(assert \"index out of bounds\")",
     "that the indices are within the dimension indexed, and that a boolean mask has the shape "
     "of the tensor it selects from"},
    {{"indexFuncSmallIndex", "indexFuncLargeIndex", "index_copy_kernel_impl", "index_fill_kernel_impl"},
     "an index_add_, index_copy_, index_fill_ or index_reduce_",
     "an index at or above the size of the dimension written (assert `dstIndex < dstAddDimSize`)",
     "that the index tensor's values are below self.size(dim)"},
    {{"index_elementwise_kernel", "index_kernel_impl"},
     "an advanced indexing x[idx] (index, take, a gather by a tensor of indices)",
     "an index at or above the size of the dimension it indexes, or below minus that size "
     "(assert \"index out of bounds\")",
     "that the indices are within the dimension indexed (no -1 placeholder, no index computed "
     "for a longer sequence or a larger batch)"},
    {{"scatter_gather"},
     "a scatter or gather (gather, scatter_, scatter_add_, scatter_reduce, take_along_dim, "
     "one_hot)",
     "an index at or above the size of the dimension it indexes, or a negative one (assert "
     "\"index out of bounds\")",
     "that 0 <= index < x.size(dim) for the dim given; for one_hot, that num_classes is above the "
     "largest label"},
    {{"nll_loss"},
     "an nll_loss or cross_entropy (CrossEntropyLoss, NLLLoss)",
     "a target class outside [0, C): a label at or above the number of classes, or a negative one "
     "other than ignore_index (assert `t >= 0 && t < n_classes`)",
     "that the targets are in [0, num_classes): the model's last layer must have one output per "
     "class (labels numbered from 1 need C + 1 outputs, or subtract 1), padding labels must be "
     "ignore_index (-100 unless set), and num_labels in the model's config must match the "
     "dataset's"},
    {{"binary_cross_entropy"},
     "a binary_cross_entropy (BCELoss)",
     "an input outside [0, 1]: logits not passed through a sigmoid, or NaN from an earlier step "
     "(assert `input_val >= zero && input_val <= one`)",
     "that the inputs are probabilities (a sigmoid before BCELoss, or BCEWithLogitsLoss on the "
     "logits) and finite (`cublasspy run --scan inputs` finds NaN/Inf in the GEMMs' operands)"},
    {{"ctc_loss"},
     "a ctc_loss",
     "a target label outside [0, C) or equal to blank, or target lengths longer than the targets "
     "or the input allows",
     "that the targets are in [0, C) without the blank index (C counts the blank), and that each "
     "target length is at most the input length"},
    {{"_assert_async_cuda_kernel"},
     "a torch._assert_async check, as torch.multinomial makes of its probabilities (sampling in "
     "generate())",
     "a condition asserted on the device was false; for multinomial: a probability that is NaN, "
     "Inf or negative (\"probability tensor contains either inf, nan or element < 0\"), from "
     "non-finite logits",
     "the probabilities' source: logits that overflow in fp16 (try bf16 or fp32; `cublasspy run "
     "--scan all` finds half overflows in the GEMMs), NaN weights after a diverged training "
     "step, a temperature of 0"},
    {{"Multinomial", "multinomial"},
     "a torch.multinomial sampling",
     "probabilities that are negative, NaN or Inf, or a row that sums to zero (asserts `val >= "
     "zero`, `cumdist[size - 1] > 0`)",
     "that each row of probabilities is finite, non-negative and has a positive sum: non-finite "
     "logits (an fp16 overflow, NaN weights), a mask that removes every choice, a temperature of "
     "0"},
    {{"bernoulli_tensor_cuda_kernel"},
     "a torch.bernoulli (or a dropout from a tensor of probabilities)",
     "a probability outside [0, 1], NaN included (assert `0 <= p && p <= 1`)",
     "that the probabilities are finite and in [0, 1] (a sigmoid before, NaN from an earlier "
     "step)"},
};

// PyTorch's kernels are in at::native (demangled), N2at6native... (mangled): another library's
// kernel that happens to share a name ("renorm", "gather") is not one of these.
bool is_pytorch_kernel(std::string_view kernel) {
  return kernel.find("at::native::") != std::string_view::npos || kernel.find("2at6native") != std::string_view::npos;
}

}  // namespace

std::span<const KernelCause> kernel_causes() { return kRows; }

const KernelCause* kernel_cause(std::string_view kernel) {
  if (!is_pytorch_kernel(kernel)) return nullptr;
  for (const KernelCause& row : kRows) {
    if (!kernel_cause_name(row, kernel).empty()) return &row;
  }
  return nullptr;
}

std::string_view kernel_cause_name(const KernelCause& row, std::string_view kernel) {
  for (std::string_view name : row.names) {
    if (!name.empty() && kernel.find(name) != std::string_view::npos) return name;
  }
  return {};
}

std::string kernel_cause_advice(std::string_view kernel, const KernelCause& row) {
  return fmt::format("{} is PyTorch's kernel for {}; what usually makes it fault is {}. Check {}. ",
                     kernel_cause_name(row, kernel), row.operation, row.cause, row.check);
}

std::string known_kernels_advice(const std::vector<LaunchView>& launches) {
  std::string known;
  std::vector<const KernelCause*> named;
  for (const LaunchView& l : launches) {
    const KernelCause* row = kernel_cause(l.kernel);
    if (row == nullptr || std::find(named.begin(), named.end(), row) != named.end()) continue;
    named.push_back(row);
    known += kernel_cause_advice(l.kernel, *row);
  }
  return known;
}

std::string launches_advice(const std::vector<LaunchView>& launches) {
  // For a kernel, copy or memset the table does not know: what it was given.
  static constexpr const char* kLaunchAdvice =
      "Check the indices and sizes that work is given: an embedding's or a gather's indices against "
      "the table's size, a loss's targets against the number of classes (the usual causes of a "
      "device-side assert), a copy's or a memset's size against its allocation. ";
  const bool unknown = launches.empty() || std::any_of(launches.begin(), launches.end(), [](const LaunchView& l) {
                         return kernel_cause(l.kernel) == nullptr;
                       });
  return known_kernels_advice(launches) + (unknown ? kLaunchAdvice : "");
}

}  // namespace cublasspy::diagnoses
