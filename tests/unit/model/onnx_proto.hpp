// Builders of ONNX models with the onnx protobuf API alone (no ascend-run internals), shared by
// the importer's tests and the tests that load models through the public ACL API.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace onnx_test {

using onnx::TensorProto;

inline onnx::ModelProto new_model(int64_t opset = 13) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("hostile");
  return m;
}

inline void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                      const std::vector<int64_t>& dims, int type = TensorProto::FLOAT) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                                 const std::vector<std::string>& in, const std::string& out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

// A node named after its one output.
inline onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
                                 const std::string& out) {
  return add_node(g, op, out, in, out);
}

inline void add_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

inline void add_int(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

inline TensorProto* add_init(onnx::GraphProto* g, const std::string& name, int type, const std::vector<int64_t>& dims) {
  TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (int64_t d : dims) t->add_dims(d);
  return t;
}

inline TensorProto* add_int64s(onnx::GraphProto* g, const std::string& name, const std::vector<int64_t>& dims,
                               const std::vector<int64_t>& values) {
  TensorProto* t = add_init(g, name, TensorProto::INT64, dims);
  for (int64_t v : values) t->add_int64_data(v);
  return t;
}

}  // namespace onnx_test
