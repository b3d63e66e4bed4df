// Issue 20's pointwise operators inside a model, through aclmdlLoadFromMem / aclmdlExecute: Shape,
// ConstantOfShape (tensor `value`), Range (scalar initializers), variadic Max, Clip (opset 11+
// inputs), Greater, Not, Dropout and Where in one graph, against a float64 reference; and a
// ConstantOfShape whose `value` has two elements refused at load naming the node.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "conformance.hpp"
#include "op_support.hpp"

namespace conformance {
namespace {

using onnx::TensorProto;

void value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
           const std::vector<int64_t>& dims, int type) {
  onnx::ValueInfoProto* v = list->Add();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(type);
  for (int64_t d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* node(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
                      const std::string& out) {
  onnx::NodeProto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + out);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void scalar(onnx::GraphProto* g, const std::string& name, float v) {
  TensorProto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT);
  t->add_float_data(v);
}

// x [2, 5] -> y = Where(Not(Greater(c, r)), Dropout(c), x) with c = Clip(Max(x, z, r), -1, 3),
// z = ConstantOfShape([2, 5], value 0.5), r = Range(0, 5, 1); shp = Shape(x).
std::string pointwise_model(int value_elements) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("pointwise");
  value(g->mutable_input(), "x", {2, 5}, TensorProto::FLOAT);
  value(g->mutable_output(), "y", {2, 5}, TensorProto::FLOAT);
  value(g->mutable_output(), "shp", {2}, TensorProto::INT64);
  TensorProto* dims = g->add_initializer();
  dims->set_name("dims");
  dims->set_data_type(TensorProto::INT64);
  dims->add_dims(2);
  dims->add_int64_data(2);
  dims->add_int64_data(5);
  for (auto [name, v] : {std::pair<const char*, float>{"r0", 0}, {"r5", 5}, {"r1", 1}, {"lo", -1}, {"hi", 3}}) {
    scalar(g, name, v);
  }
  node(g, "Shape", {"x"}, "shp");
  onnx::NodeProto* cos = node(g, "ConstantOfShape", {"dims"}, "z");
  auto* a = cos->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::FLOAT);
  a->mutable_t()->add_dims(value_elements);
  for (int i = 0; i < value_elements; ++i) a->mutable_t()->add_float_data(0.5f);
  node(g, "Range", {"r0", "r5", "r1"}, "r");
  node(g, "Max", {"x", "z", "r"}, "m");
  node(g, "Clip", {"m", "lo", "hi"}, "c");
  node(g, "Greater", {"c", "r"}, "gt");
  node(g, "Not", {"gt"}, "ng");
  node(g, "Dropout", {"c"}, "d");
  node(g, "Where", {"ng", "d", "x"}, "y");
  return m.SerializeAsString();
}

using ModelPointwiseTest = AclDeviceTest;

TEST_P(ModelPointwiseTest, PointwiseOpsRunInsideAModel) {
  const std::string image = pointwise_model(1);
  uint32_t id = 0;
  ASSERT_ACL(ACL_SUCCESS, aclmdlLoadFromMem(image.data(), image.size(), &id)) << aclGetRecentErrMsg();
  std::vector<double> x = randoms(10, 90, -3, 6);
  for (double& v : x) v = static_cast<float>(v);
  HostTensor hx = f32({2, 5}, x);
  void *din = nullptr, *dy = nullptr, *dshp = nullptr;
  ASSERT_ACL_OK(aclrtMalloc(&din, 40, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&dy, 40, ACL_MEM_MALLOC_HUGE_FIRST));
  ASSERT_ACL_OK(aclrtMalloc(&dshp, 16, ACL_MEM_MALLOC_HUGE_FIRST));
  writeDevice(din, hx.bytes);
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  std::vector<aclDataBuffer*> bufs = {aclCreateDataBuffer(din, 40), aclCreateDataBuffer(dy, 40),
                                      aclCreateDataBuffer(dshp, 16)};
  ASSERT_ACL_OK(aclmdlAddDatasetBuffer(in, bufs[0]));
  ASSERT_ACL_OK(aclmdlAddDatasetBuffer(out, bufs[1]));
  ASSERT_ACL_OK(aclmdlAddDatasetBuffer(out, bufs[2]));
  ASSERT_ACL(ACL_SUCCESS, aclmdlExecute(id, in, out)) << aclGetRecentErrMsg();
  std::vector<double> ref;
  for (int i = 0; i < 10; ++i) {
    const double r = i % 5;
    const double c = std::min(std::max(std::max({x[i], 0.5, r}), -1.0), 3.0);
    ref.push_back(!(c > r) ? c : x[i]);
  }
  HostTensor y{ACL_FLOAT, {2, 5}, readDevice(dy, 40)}, shp{ACL_INT64, {2}, readDevice(dshp, 16)};
  EXPECT_TRUE(near(y.values(), ref, 0, 0));
  EXPECT_TRUE(near(shp.values(), {2, 5}, 0, 0));
  EXPECT_ACL_OK(aclmdlUnload(id));
  aclmdlDestroyDataset(in);
  aclmdlDestroyDataset(out);
  for (aclDataBuffer* b : bufs) aclDestroyDataBuffer(b);
  for (void* p : {din, dy, dshp}) aclrtFree(p);
}

TEST_P(ModelPointwiseTest, ATwoElementConstantValueIsRefusedAtLoad) {
  const std::string image = pointwise_model(2);
  uint32_t id = 0;
  (void)aclGetRecentErrMsg();
  EXPECT_ACL(ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID, aclmdlLoadFromMem(image.data(), image.size(), &id));
  const char* m = aclGetRecentErrMsg();
  const std::string msg = m == nullptr ? "" : m;
  EXPECT_NE(std::string::npos,
            msg.find("node 'ConstantOfShape_z' (ConstantOfShape): attribute 'value' is a tensor of 2"))
      << msg;
}

ARUN_CONFORMANCE_INSTANTIATE(ModelPointwiseTest);

}  // namespace
}  // namespace conformance
