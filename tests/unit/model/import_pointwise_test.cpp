// The importer paths issue 20's pointwise operators use: a one-element TENSOR attribute (ConstantOfShape's
// `value`) becomes a scalar attribute (int64 for integer / bool tensors, float otherwise), a larger
// one is refused at load naming the node, and the opset-dependent operators (Clip, Dropout) are
// told the model's opset. Models are built here with the onnx protobuf API.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <variant>
#include <vector>

#include "acl/acl.h"
#include "arun/model/graph.hpp"

namespace arun::model {
namespace {

using onnx::TensorProto;

onnx::ModelProto new_model(int64_t opset) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  m.mutable_graph()->set_name("pointwise");
  return m;
}

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
               const std::vector<int64_t>& dims, int type) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::string& name,
                          const std::vector<std::string>& in, const std::vector<std::string>& out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

struct Imported {
  int code;
  std::string message;
  Graph graph;
};

Imported import(const onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  Imported r;
  const Status st = import_onnx(bytes.data(), bytes.size(), ImportLimits{}, &r.graph);
  r.code = static_cast<int>(st.value());
  r.message = st.message();
  return r;
}

const Node* node_named(const Graph& g, const std::string& name) {
  for (const Node& n : g.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

const TensorInfo* tensor_named(const Graph& g, const std::string& name) {
  for (const TensorInfo& t : g.tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

// shape (an int64 initializer [2, 3]) -> ConstantOfShape(value) -> y; the caller fills `value`.
onnx::ModelProto constant_of_shape(TensorProto** value, int out_type) {
  onnx::ModelProto m = new_model(13);
  auto* g = m.mutable_graph();
  TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(2);
  shape->add_int64_data(3);
  add_value(g->mutable_output(), "y", {2, 3}, out_type);
  onnx::NodeProto* n = add_node(g, "ConstantOfShape", "fill", {"shape"}, {"y"});
  auto* a = n->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  *value = a->mutable_t();
  return m;
}

TEST(ImportPointwise, OneElementTensorAttributeBecomesAScalar) {
  // int64 [1] -> an int attribute, the output int64.
  TensorProto* v = nullptr;
  onnx::ModelProto m = constant_of_shape(&v, TensorProto::INT64);
  v->set_data_type(TensorProto::INT64);
  v->add_dims(1);
  v->add_int64_data(-3);
  Imported r = import(m);
  ASSERT_EQ(r.code, 0) << r.message;
  const Node* n = node_named(r.graph, "fill");
  ASSERT_NE(n, nullptr);
  const ops::AttrValue* value = n->attrs.find("value");
  ASSERT_NE(value, nullptr);
  ASSERT_TRUE(std::holds_alternative<int64_t>(*value));
  EXPECT_EQ(std::get<int64_t>(*value), -3);
  const TensorInfo* y = tensor_named(r.graph, "y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->dtype, ACL_INT64);
  EXPECT_EQ(y->shape, (ops::Shape{2, 3}));

  // float16 scalar (raw data) -> a float attribute.
  TensorProto* h = nullptr;
  onnx::ModelProto m2 = constant_of_shape(&h, TensorProto::FLOAT16);
  h->set_data_type(TensorProto::FLOAT16);
  h->add_dims(1);                        // ONNX's shape inference wants a one-dim tensor
  const uint16_t one_and_half = 0x3e00;  // 1.5 in binary16
  h->set_raw_data(std::string(reinterpret_cast<const char*>(&one_and_half), 2));
  r = import(m2);
  ASSERT_EQ(r.code, 0) << r.message;
  value = node_named(r.graph, "fill")->attrs.find("value");
  ASSERT_TRUE(value != nullptr && std::holds_alternative<float>(*value));
  EXPECT_EQ(std::get<float>(*value), 1.5f);
  EXPECT_EQ(tensor_named(r.graph, "y")->dtype, ACL_FLOAT16);

  // bool -> int 1; uint8 255 stays 255.
  TensorProto* b = nullptr;
  onnx::ModelProto m3 = constant_of_shape(&b, TensorProto::BOOL);
  b->set_data_type(TensorProto::BOOL);
  b->add_dims(1);
  b->add_int32_data(1);
  r = import(m3);
  ASSERT_EQ(r.code, 0) << r.message;
  value = node_named(r.graph, "fill")->attrs.find("value");
  ASSERT_TRUE(value != nullptr && std::holds_alternative<int64_t>(*value));
  EXPECT_EQ(std::get<int64_t>(*value), 1);
  TensorProto* u = nullptr;
  onnx::ModelProto m4 = constant_of_shape(&u, TensorProto::UINT8);
  u->set_data_type(TensorProto::UINT8);
  u->add_dims(1);
  u->add_int32_data(255);
  r = import(m4);
  ASSERT_EQ(r.code, 0) << r.message;
  EXPECT_EQ(std::get<int64_t>(*node_named(r.graph, "fill")->attrs.find("value")), 255);
}

TEST(ImportPointwise, ALargerTensorAttributeIsRefusedNamingTheNode) {
  TensorProto* v = nullptr;
  onnx::ModelProto m = constant_of_shape(&v, TensorProto::FLOAT);
  v->set_data_type(TensorProto::FLOAT);
  v->add_dims(2);
  v->add_float_data(1.0f);
  v->add_float_data(2.0f);
  const Imported r = import(m);
  EXPECT_EQ(r.code, ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID) << r.message;
  EXPECT_NE(r.message.find("node 'fill' (ConstantOfShape): attribute 'value' is a tensor of 2 elements"),
            std::string::npos)
      << r.message;
  // An empty one too (zero elements is not one).
  TensorProto* e = nullptr;
  onnx::ModelProto m2 = constant_of_shape(&e, TensorProto::FLOAT);
  e->set_data_type(TensorProto::FLOAT);
  e->add_dims(0);
  const Imported r2 = import(m2);
  EXPECT_EQ(r2.code, ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID) << r2.message;
  EXPECT_NE(r2.message.find("node 'fill' (ConstantOfShape)"), std::string::npos) << r2.message;
}

// x [2, 3] -> Clip (attributes before opset 11, inputs from 11) -> Dropout -> y: each node gets the model's opset.
TEST(ImportPointwise, ClipAndDropoutAreToldTheOpset) {
  for (int64_t opset : {7, 10, 11, 12, 13, 17}) {
    onnx::ModelProto m = new_model(opset);
    auto* g = m.mutable_graph();
    add_value(g->mutable_input(), "x", {2, 3}, TensorProto::FLOAT);
    add_value(g->mutable_output(), "y", {2, 3}, TensorProto::FLOAT);
    // Declared: ONNX 1.12 infers no shape for Dropout-7's mask.
    add_value(g->mutable_value_info(), "mask", {2, 3}, opset < 10 ? TensorProto::FLOAT : TensorProto::BOOL);
    std::vector<std::string> clip_in = {"x"};
    if (opset >= 11) {
      for (const char* name : {"lo", "hi"}) {
        TensorProto* t = g->add_initializer();
        t->set_name(name);
        t->set_data_type(TensorProto::FLOAT);
        t->add_float_data(name[0] == 'l' ? -1.0f : 1.0f);
        clip_in.push_back(name);
      }
    }
    onnx::NodeProto* clip = add_node(g, "Clip", "clip", clip_in, {"c"});
    if (opset < 11) {
      auto* a = clip->add_attribute();
      a->set_name("min");
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(-1.0f);
    }
    onnx::NodeProto* drop = add_node(g, "Dropout", "drop", {"c"}, {"y", "mask"});
    if (opset < 12) {
      auto* a = drop->add_attribute();
      a->set_name("ratio");
      a->set_type(onnx::AttributeProto::FLOAT);
      a->set_f(0.25f);
    }
    const Imported r = import(m);
    ASSERT_EQ(r.code, 0) << "opset " << opset << ": " << r.message;
    for (const char* name : {"clip", "drop"}) {
      const ops::AttrValue* o = node_named(r.graph, name)->attrs.find("opset");
      ASSERT_TRUE(o != nullptr && std::holds_alternative<int64_t>(*o)) << name;
      EXPECT_EQ(std::get<int64_t>(*o), opset) << name;
    }
    // The mask: the input's type before opset 10, bool from 10.
    EXPECT_EQ(tensor_named(r.graph, "mask")->dtype, opset < 10 ? ACL_FLOAT : ACL_BOOL) << opset;
  }
}

}  // namespace
}  // namespace arun::model
