// Checks of a parsed ONNX ModelProto that run before anything trusts it: before a byte is allocated
// from a declared size and before libonnx's shape inference (which assumes well-formed input and
// crashes on a short initializer or a zero stride). Private to the model library.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "acl/acl_base.h"
#include "arun/core/status.hpp"
#include "arun/model/graph.hpp"

namespace arun::model::detail {

// The aclDataType of an ONNX TensorProto data type; false for one the runtime does not support.
bool to_acl_dtype(int32_t onnx_type, aclDataType* out);

// ACL_ERROR_PARSE_MODEL with `what` as the message.
Status parse_error(const std::string& what);

// One tensor's declared data (an initializer or a Constant's value): a supported data type, dims
// non-negative with a product that neither overflows nor exceeds limits.max_tensor_bytes, data in
// the file (not external) whose length matches the dims exactly. `what` names the tensor in the
// message. *bytes: the tensor's size.
Status check_tensor_data(const onnx::TensorProto& t, const std::string& what, const ImportLimits& limits,
                         size_t* bytes);

// The whole model: every initializer and tensor attribute (check_tensor_data), declared shapes of
// inputs / outputs / value_info, attribute kinds the importer can take (no subgraphs), the window
// attributes of convolutions and pooling (kernel_shape, strides, dilations positive, pads
// non-negative, lengths consistent with each other and with the known ranks), and Reshape's shape
// when it is a constant. Graph references and cycles are checked by the importer, also before
// shape inference.
Status check_model(const onnx::ModelProto& model, const ImportLimits& limits);

// Folds what the model computes from constants and static shapes into initializers
// (model/src/onnx_fold.cpp): Shape, Size, Constant, ConstantOfShape, Cast, Identity, Add/Sub/Mul/
// Div, Equal/Less/Greater, Where, Unsqueeze, Squeeze, Reshape, Concat, Gather, Slice and Range on
// tensors of at most 65536 elements, repeated until nothing changes. The model must have passed
// check_model; the folded model is checked again after every pass.
Status fold_constants(onnx::ModelProto* model, int64_t opset, const ImportLimits& limits);

// Folds every inference BatchNormalization that alone reads a Conv's output into that Conv's
// weights and bias (float32 weights each read by that Conv only): one kernel instead of two, and one
// pass less over the activation. Returns how many were folded.
int fold_batch_norms(onnx::ModelProto* model);

}  // namespace arun::model::detail
