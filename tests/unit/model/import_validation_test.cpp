// The ONNX importer's checks before shape inference (issue 24, findings 1 and 2): hostile models,
// built here with the onnx protobuf API, are refused with ACL_ERROR_PARSE_MODEL (or the code the
// importer documents) and a message naming the tensor or node, never a crash or a huge allocation.
// And model files: only regular files under the size limit are read.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/model/graph.hpp"
#include "onnx_builder.hpp"

namespace arun::model {
namespace {

using namespace testing;

#define EXPECT_REFUSED(result, want_code, text)                                       \
  do {                                                                                \
    const Result r_ = (result);                                                       \
    EXPECT_EQ(r_.code, (want_code)) << r_.message;                                    \
    EXPECT_NE(r_.message.find(text), std::string::npos) << "message: " << r_.message; \
  } while (0)

// x [1, 1, 4, 4] -> OP (with W [1, 1, 3, 3] for Conv) -> y; the caller sets the attributes.
onnx::ModelProto window_model(const std::string& op, onnx::NodeProto** node) {
  onnx::ModelProto m = new_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1, 1, 4, 4});
  add_value(g->mutable_output(), "y", {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  std::vector<std::string> in = {"x"};
  if (op == "Conv") {
    TensorProto* w = add_init(g, "w", TensorProto::FLOAT, {1, 1, 3, 3});
    for (int i = 0; i < 9; ++i) w->add_float_data(1.0f);
    in.push_back("w");
  }
  *node = add_node(g, op, "win", in, "y");
  return m;
}

TEST(ImportValidation, AWellFormedModelStillImports) {
  for (const char* op : {"Conv", "MaxPool", "AveragePool"}) {
    onnx::NodeProto* n = nullptr;
    onnx::ModelProto m = window_model(op, &n);
    add_ints(n, "kernel_shape", {3, 3});
    add_ints(n, "strides", {1, 1});
    add_ints(n, "pads", {1, 1, 1, 1});
    const Result r = import(m);
    EXPECT_EQ(r.code, 0) << op << ": " << r.message;
  }
}

// Finding 1: strides [0, 0] was a SIGFPE inside libonnx's convPoolShapeInference.
TEST(ImportValidation, ZeroStridesAreRefusedBeforeShapeInference) {
  for (const char* op : {"Conv", "MaxPool", "AveragePool"}) {
    onnx::NodeProto* n = nullptr;
    onnx::ModelProto m = window_model(op, &n);
    add_ints(n, "kernel_shape", {2, 2});
    add_ints(n, "strides", {0, 0});
    EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL,
                   "node 'win' (" + std::string(op) + "): attribute 'strides' is [0, 0]; every value must be positive");
  }
}

TEST(ImportValidation, WindowAttributesArePositiveAndConsistent) {
  struct Case {
    const char* op;
    std::vector<std::pair<std::string, std::vector<int64_t>>> attrs;
    const char* text;
  };
  const std::vector<Case> cases = {
      {"MaxPool", {{"kernel_shape", {0, 2}}}, "attribute 'kernel_shape' is [0, 2]"},
      {"MaxPool", {{"kernel_shape", {-2, 2}}}, "attribute 'kernel_shape' is [-2, 2]"},
      {"AveragePool",
       {{"kernel_shape", {2, 2}}, {"pads", {0, -1, 0, 0}}},
       "'pads' is [0, -1, 0, 0]; every value must be non-negative"},
      {"MaxPool", {{"kernel_shape", {2, 2}}, {"dilations", {0, 1}}}, "attribute 'dilations' is [0, 1]"},
      {"Conv",
       {{"strides", {1, 1, 1}}},
       "attribute 'strides' [1, 1, 1] has 3 values; the weight 'w' of rank 4 needs 2"},
      {"Conv",
       {{"kernel_shape", {3, 3}}, {"pads", {1, 1}}},
       "attribute 'pads' [1, 1] has 2 values; kernel_shape [3, 3] needs 4"},
      {"MaxPool", {{"kernel_shape", {2, 2, 2}}}, "input 'x' has rank 4; kernel_shape [2, 2, 2] needs rank 5"},
      {"AveragePool", {{"strides", {1, 1}}}, "attribute 'kernel_shape' is required"},
      {"MaxPool", {{"kernel_shape", {2, 4294967296}}}, "at most 2147483647"},
  };
  for (const Case& c : cases) {
    onnx::NodeProto* n = nullptr;
    onnx::ModelProto m = window_model(c.op, &n);
    for (const auto& [name, v] : c.attrs) add_ints(n, name, v);
    EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL, c.text);
  }
  onnx::NodeProto* n = nullptr;
  onnx::ModelProto m = window_model("Conv", &n);
  auto* group = n->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(0);
  EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL, "attribute 'group' must be a positive integer");

  // Found by mutation: a Conv whose weight is a scalar (no kernel_shape) crashed shape inference.
  onnx::NodeProto* scalar = nullptr;
  onnx::ModelProto m2 = window_model("Conv", &scalar);
  TensorProto* w = m2.mutable_graph()->mutable_initializer(0);
  w->clear_dims();
  w->clear_float_data();
  w->add_float_data(1.0f);
  EXPECT_REFUSED(import(m2), ACL_ERROR_PARSE_MODEL,
                 "node 'win' (Conv): the weight 'w' of rank 0 leaves no spatial axis");
}

// x [2, 3] -> Reshape(x, shape) -> y, with the shape initializer made by the caller.
onnx::ModelProto reshape_model(TensorProto** shape) {
  onnx::ModelProto m = new_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {2, 3});
  add_value(g->mutable_output(), "y", {3, 2});
  *shape = add_init(g, "shape", TensorProto::INT64, {2});
  add_node(g, "Reshape", "reshape", {"x", "shape"}, "y");
  return m;
}

// Finding 1: raw data shorter than the dims was a NULL write in onnx::ParseData<long>.
TEST(ImportValidation, ReshapeShapeShorterThanItsDims) {
  TensorProto* shape = nullptr;
  onnx::ModelProto m = reshape_model(&shape);
  const int64_t three = 3;
  shape->set_raw_data(std::string(reinterpret_cast<const char*>(&three), 8));  // one value, dims say two
  EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL, "initializer 'shape' has 8 bytes of raw data, its dims need 16");

  TensorProto* typed = nullptr;
  onnx::ModelProto m2 = reshape_model(&typed);
  typed->add_int64_data(3);
  EXPECT_REFUSED(import(m2), ACL_ERROR_PARSE_MODEL, "initializer 'shape' has 1 values, its dims need 2");

  TensorProto* ok = nullptr;
  onnx::ModelProto m3 = reshape_model(&ok);
  ok->add_int64_data(3);
  ok->add_int64_data(2);
  const Result r = import(m3);
  EXPECT_EQ(r.code, 0) << r.message;
}

TEST(ImportValidation, ReshapeShapeValues) {
  TensorProto* shape = nullptr;
  onnx::ModelProto m = reshape_model(&shape);
  shape->add_int64_data(-1);
  shape->add_int64_data(-1);
  EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL, "node 'reshape' (Reshape): the shape 'shape' holds -1 at index 1");

  TensorProto* f = nullptr;
  onnx::ModelProto m2 = reshape_model(&f);
  f->set_data_type(TensorProto::FLOAT);
  f->add_float_data(3.0f);
  f->add_float_data(2.0f);
  EXPECT_REFUSED(import(m2), ACL_ERROR_PARSE_MODEL, "must be a 1-D int64 tensor");
}

// Finding 2: a 57-byte model made the loader allocate and zero 8 GiB before comparing with the data.
TEST(ImportValidation, HugeDeclaredInitializerFailsOnTheDeclaration) {
  onnx::ModelProto m = new_model();
  auto* g = m.mutable_graph();
  add_init(g, "w", TensorProto::FLOAT, {int64_t(1) << 31})->set_raw_data("");
  add_value(g->mutable_output(), "y", {int64_t(1) << 31});
  add_node(g, "Relu", "relu", {"w"}, "y");
  EXPECT_LT(m.ByteSizeLong(), 120u);
  EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL,
                 "initializer 'w' declares 2147483648 elements, more than the limit of 4294967296 bytes");
  // With no size limit, the data decides: 0 bytes where 8 GiB are declared, refused before allocating.
  ImportLimits unlimited;
  unlimited.max_tensor_bytes = UINT64_MAX;
  EXPECT_REFUSED(import(m, unlimited), ACL_ERROR_PARSE_MODEL,
                 "initializer 'w' has 0 bytes of raw data, its dims need 8589934592");
}

TEST(ImportValidation, InitializerDims) {
  onnx::ModelProto m = new_model();
  auto* g = m.mutable_graph();
  add_init(g, "neg", TensorProto::FLOAT, {2, -1});
  add_value(g->mutable_output(), "y", {2});
  add_node(g, "Relu", "relu", {"neg"}, "y");
  EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL, "initializer 'neg' has a negative dimension -1 at axis 1");

  onnx::ModelProto m2 = new_model();
  add_init(m2.mutable_graph(), "wrap", TensorProto::FLOAT, {int64_t(1) << 62, int64_t(1) << 62});
  ImportLimits unlimited;
  unlimited.max_tensor_bytes = UINT64_MAX;
  EXPECT_REFUSED(import(m2, unlimited), ACL_ERROR_PARSE_MODEL,
                 "initializer 'wrap': the element count of its dims overflows");

  onnx::ModelProto m3 = new_model();
  TensorProto* ext = add_init(m3.mutable_graph(), "ext", TensorProto::FLOAT, {1});
  ext->set_data_location(TensorProto::EXTERNAL);
  EXPECT_REFUSED(import(m3), ACL_ERROR_PARSE_MODEL, "initializer 'ext' keeps its data in an external file");

  // A Constant node's value is checked like an initializer.
  onnx::ModelProto m4 = new_model();
  onnx::NodeProto* c = add_node(m4.mutable_graph(), "Constant", "const", {}, "k");
  auto* a = c->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(TensorProto::FLOAT);
  a->mutable_t()->add_dims(4);
  a->mutable_t()->set_raw_data(std::string(3, '\0'));
  EXPECT_REFUSED(import(m4), ACL_ERROR_PARSE_MODEL, "node 'const' (Constant): tensor attribute 'value' has 3 bytes");
}

TEST(ImportValidation, TheTensorLimitAppliesToInferredTensors) {
  onnx::ModelProto m = new_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_input(), "x", {1024, 1024});
  add_value(g->mutable_output(), "y", {});
  g->mutable_output(0)->mutable_type()->mutable_tensor_type()->clear_shape();
  add_node(g, "Relu", "relu", {"x"}, "y");
  ImportLimits small;
  small.max_tensor_bytes = 1 << 20;  // 1 MiB; x and y are 4 MiB
  EXPECT_REFUSED(import(m, small), ACL_ERROR_GE_SHAPE_INVALID, "more than the limit of 1048576 bytes per tensor");
  EXPECT_EQ(import(m).code, 0);
  // A declared dimension beyond the limit is refused before inference.
  onnx::ModelProto m2 = new_model();
  add_value(m2.mutable_graph()->mutable_input(), "x", {-5});
  EXPECT_REFUSED(import(m2), ACL_ERROR_PARSE_MODEL, "tensor 'x' declares dimension 0 as -5");
}

TEST(ImportValidation, TruncatedProtobuf) {
  TensorProto* shape = nullptr;
  onnx::ModelProto m = reshape_model(&shape);
  shape->add_int64_data(3);
  shape->add_int64_data(2);
  const std::string bytes = m.SerializeAsString();
  for (size_t cut : {bytes.size() / 2, bytes.size() - 1, size_t(3)}) {
    Graph g;
    const Status st = import_onnx(bytes.data(), cut, &g);
    EXPECT_EQ(static_cast<int>(st.value()), ACL_ERROR_PARSE_MODEL) << cut << ": " << st.message();
    EXPECT_NE(st.message().find("not a valid ONNX ModelProto"), std::string::npos) << st.message();
  }
}

TEST(ImportValidation, CyclesAndDanglingReferences) {
  onnx::ModelProto m = new_model();
  auto* g = m.mutable_graph();
  add_value(g->mutable_output(), "b", {2});
  add_node(g, "Relu", "first", {"b"}, "a");
  add_node(g, "Relu", "second", {"a"}, "b");
  EXPECT_REFUSED(import(m), ACL_ERROR_PARSE_MODEL, "the graph has a cycle through node 'first'");

  onnx::ModelProto m2 = new_model();
  add_value(m2.mutable_graph()->mutable_output(), "y", {2});
  add_node(m2.mutable_graph(), "Relu", "relu", {"nowhere"}, "y");
  EXPECT_REFUSED(import(m2), ACL_ERROR_PARSE_MODEL, "node 'relu' (Relu) reads tensor 'nowhere'");

  // A subgraph (If, Loop) is never handed to shape inference.
  onnx::ModelProto m3 = new_model();
  onnx::NodeProto* n = add_node(m3.mutable_graph(), "If", "branch", {"c"}, "y");
  auto* a = n->add_attribute();
  a->set_name("then_branch");
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name("inner");
  EXPECT_REFUSED(import(m3), ACL_ERROR_GE_OP_KERNEL_TYPE_INVALID, "node 'branch' (If): attribute 'then_branch'");
}

// ---- model files ----

class ModelFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/model_file_test.XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(ModelFileTest, OnlyRegularFilesUnderTheLimitAreRead) {
  std::string out;
  auto refused = [&](const std::string& path, const ImportLimits& limits, const std::string& text) {
    const Status st = read_model_file(path.c_str(), limits, &out);
    EXPECT_EQ(static_cast<int>(st.value()), ACL_ERROR_READ_MODEL_FAILURE) << path << ": " << st.message();
    EXPECT_NE(st.message().find(text), std::string::npos) << st.message();
  };
  const ImportLimits limits;
  refused(dir_, limits, "is a directory");
  refused("/dev/zero", limits, "is not a regular file");  // once read without end
  const std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  refused(fifo, limits, "is not a regular file");  // once blocked forever in open
  refused(dir_ + "/missing.onnx", limits, "cannot open model file");
  const std::string empty = dir_ + "/empty.onnx";
  std::ofstream(empty).close();
  refused(empty, limits, "is empty");
  const std::string file = dir_ + "/m.onnx";
  std::ofstream(file) << std::string(100, 'm');
  ImportLimits small;
  small.max_file_bytes = 99;
  refused(file, small, "has 100 bytes, more than the limit of 99");
  const Status st = read_model_file(file.c_str(), limits, &out);
  EXPECT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(out, std::string(100, 'm'));
}

}  // namespace
}  // namespace arun::model
