// msprof_csv's operator columns from the operator library: an aclopExecuteV2 Add (single operator:
// msprof's "no model" values, the op type as Op Name) and a model run by aclmdlExecute (node names,
// the model's id, name and inference index), each with its shapes, dtypes and formats; plus the task
// type vocabulary of a copy and a host function.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "csv_reader.hpp"

namespace fs = std::filesystem;

namespace arun::test {
namespace {

struct Row {
  std::map<std::string, std::string> cell;
  const std::string& operator[](const std::string& k) const { return cell.at(k); }
};

std::vector<Row> rows_of(const std::vector<std::vector<std::string>>& csv) {
  std::vector<Row> rows;
  for (size_t i = 1; i < csv.size(); ++i) {
    EXPECT_EQ(csv[i].size(), csv[0].size()) << "row " << i;
    Row r;
    for (size_t c = 0; c < csv[0].size() && c < csv[i].size(); ++c) r.cell[csv[0][c]] = csv[i][c];
    rows.push_back(std::move(r));
  }
  return rows;
}

// Adds two NCHW float tensors of shape [1,3,2,2] on `stream` with aclopExecuteV2.
void run_add(aclrtStream stream) {
  const int64_t dims[] = {1, 3, 2, 2};
  constexpr size_t kBytes = 12 * sizeof(float);
  aclTensorDesc* desc = aclCreateTensorDesc(ACL_FLOAT, 4, dims, ACL_FORMAT_NCHW);
  ASSERT_NE(desc, nullptr);
  void* dev[3] = {};
  for (auto& d : dev) ASSERT_EQ(aclrtMalloc(&d, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  std::vector<float> a(12), b(12), out(12);
  for (int i = 0; i < 12; ++i) a[i] = float(i), b[i] = float(100 * i);
  ASSERT_EQ(aclrtMemcpy(dev[0], kBytes, a.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(dev[1], kBytes, b.data(), kBytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  aclDataBuffer* buf[3];
  for (int i = 0; i < 3; ++i) buf[i] = aclCreateDataBuffer(dev[i], kBytes);
  const aclTensorDesc* in_desc[] = {desc, desc};
  const aclTensorDesc* out_desc[] = {desc};
  aclDataBuffer* in_buf[] = {buf[0], buf[1]};
  aclDataBuffer* out_buf[] = {buf[2]};
  aclopAttr* attr = aclopCreateAttr();
  ASSERT_EQ(aclopExecuteV2("Add", 2, const_cast<aclTensorDesc**>(in_desc), in_buf, 1,
                           const_cast<aclTensorDesc**>(out_desc), out_buf, attr, stream),
            ACL_SUCCESS)
      << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpy(out.data(), kBytes, dev[2], kBytes, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(out[i], a[i] + b[i]);
  aclopDestroyAttr(attr);
  for (int i = 0; i < 3; ++i) {
    aclDestroyDataBuffer(buf[i]);
    aclrtFree(dev[i]);
  }
  aclDestroyTensorDesc(desc);
}

// Runs the test MLP (batch 1) `times` times with aclmdlExecute; returns its model id.
uint32_t run_mlp(int times) {
  const std::string path = std::string(ARUN_TEST_MODELS_DIR) + "/mlp_b1.onnx";
  uint32_t id = 0;
  EXPECT_EQ(aclmdlLoadFromFile(path.c_str(), &id), ACL_SUCCESS) << aclGetRecentErrMsg();
  aclmdlDesc* desc = aclmdlCreateDesc();
  EXPECT_EQ(aclmdlGetDesc(desc, id), ACL_SUCCESS);
  aclmdlDataset* in = aclmdlCreateDataset();
  aclmdlDataset* out = aclmdlCreateDataset();
  std::vector<void*> bufs;
  for (size_t i = 0; i < aclmdlGetNumInputs(desc); ++i) {
    void* p = nullptr;
    const size_t n = aclmdlGetInputSizeByIndex(desc, i);
    EXPECT_EQ(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    EXPECT_EQ(aclrtMemset(p, n, 0, n), ACL_SUCCESS);
    aclmdlAddDatasetBuffer(in, aclCreateDataBuffer(p, n));
    bufs.push_back(p);
  }
  for (size_t i = 0; i < aclmdlGetNumOutputs(desc); ++i) {
    void* p = nullptr;
    const size_t n = aclmdlGetOutputSizeByIndex(desc, i);
    EXPECT_EQ(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
    aclmdlAddDatasetBuffer(out, aclCreateDataBuffer(p, n));
    bufs.push_back(p);
  }
  for (int i = 0; i < times; ++i) EXPECT_EQ(aclmdlExecute(id, in, out), ACL_SUCCESS) << aclGetRecentErrMsg();
  for (aclmdlDataset* set : {in, out}) {
    for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); ++i) aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i));
    aclmdlDestroyDataset(set);
  }
  for (void* p : bufs) aclrtFree(p);
  aclmdlDestroyDesc(desc);
  EXPECT_EQ(aclmdlUnload(id), ACL_SUCCESS);
  return id;
}

void host_fn(void*) {}

TEST(MsprofOpSummary, OperatorAndModelColumnsComeFromTheOperatorLibrary) {
  fs::path dir = fs::temp_directory_path() / ("arun-msprof-ops-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path cfg = dir / "ops.toml";
  std::ofstream(cfg) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[profiler]\nenabled = true\n"
                     << "sinks = [\"msprof_csv\"]\noutput_dir = \"" << (dir / "out").string() << "\"\n";
  ASSERT_EQ(aclInit(cfg.string().c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  ASSERT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream stream = nullptr;
  ASSERT_EQ(aclrtCreateStream(&stream), ACL_SUCCESS);
  run_add(stream);
  constexpr int kRuns = 2;
  const uint32_t model_id = run_mlp(kRuns);
  // A copy and a host function: msprof's MEMCPY_ASYNC and HOSTFUNC_CALLBACK.
  void* dev = nullptr;
  char host[256] = {};
  ASSERT_EQ(aclrtMalloc(&dev, sizeof host, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  ASSERT_EQ(aclrtMemcpyAsync(dev, sizeof host, host, sizeof host, ACL_MEMCPY_HOST_TO_DEVICE, stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtLaunchHostFunc(stream, host_fn, nullptr), ACL_SUCCESS);
  ASSERT_EQ(aclrtSynchronizeStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtFree(dev), ACL_SUCCESS);
  ASSERT_EQ(aclrtDestroyStream(stream), ACL_SUCCESS);
  ASSERT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  auto views = msprof_views(dir / "out");
  ASSERT_FALSE(views.empty());
  const auto rows = rows_of(read_csv(views["op_summary"]));

  // The single operator: op type as Op Name, msprof's no-model values, its NCHW float tensors.
  int adds = 0;
  for (const Row& r : rows) {
    if (r["OP Type"] != "Add") continue;
    ++adds;
    EXPECT_EQ(r["Op Name"], "Add");
    EXPECT_EQ(r["Model ID"], "4294967295");
    EXPECT_EQ(r["Model Name"], "N/A");
    EXPECT_EQ(r["Infer ID"], "N/A");
    EXPECT_EQ(r["Task Type"], "AI_CORE");
    EXPECT_EQ(r["Input Shapes"], "1,3,2,2;1,3,2,2");
    EXPECT_EQ(r["Input Data Types"], "FLOAT;FLOAT");
    EXPECT_EQ(r["Input Formats"], "NCHW;NCHW");
    EXPECT_EQ(r["Output Shapes"], "1,3,2,2");
    EXPECT_EQ(r["Output Data Types"], "FLOAT");
    EXPECT_EQ(r["Output Formats"], "NCHW");
    EXPECT_GE(std::stoi(r["Block Dim"]), 1);
    EXPECT_EQ(r["aicore_time(us)"], r["Task Duration(us)"]);
  }
  EXPECT_EQ(adds, 1);
  // Shapes are quoted in the file (they hold commas), as msprof writes them.
  EXPECT_NE(csv_line_with(views["op_summary"], ",\"1,3,2,2;1,3,2,2\",FLOAT;FLOAT,NCHW;NCHW,\"1,3,2,2\",FLOAT,NCHW,"),
            "");

  // The model's nodes: ONNX node names, the model's id and file stem, one inference index per run.
  std::map<std::string, std::set<std::string>> infer_ids;  // node -> the Infer IDs it ran with
  std::map<std::string, int> per_infer;
  for (const Row& r : rows) {
    if (r["Model ID"] == "4294967295") continue;
    EXPECT_EQ(r["Model ID"], std::to_string(model_id));
    EXPECT_EQ(r["Model Name"], "mlp_b1");
    EXPECT_EQ(r["Task Type"], "AI_CORE");
    infer_ids[r["Op Name"]].insert(r["Infer ID"]);
    ++per_infer[r["Infer ID"]];
    if (r["Op Name"] == "fc0") {
      EXPECT_EQ(r["OP Type"], "Gemm");
      EXPECT_EQ(r["Input Shapes"].rfind("1,784;", 0), 0u) << r["Input Shapes"];
      EXPECT_EQ(r["Input Data Types"], "FLOAT;FLOAT;FLOAT");
      EXPECT_EQ(r["Input Formats"], "ND;ND;ND");
      EXPECT_EQ(r["Output Data Types"], "FLOAT");
    }
    if (r["Op Name"] == "relu0") {
      EXPECT_EQ(r["OP Type"], "Relu");
    }
  }
  EXPECT_TRUE(infer_ids.count("fc0")) << "no row for the MLP's first Gemm node";
  EXPECT_TRUE(infer_ids.count("relu0"));
  for (const auto& [node, ids] : infer_ids) EXPECT_EQ(ids, (std::set<std::string>{"1", "2"})) << node;
  ASSERT_EQ(per_infer.size(), size_t(kRuns));
  EXPECT_EQ(per_infer["1"], per_infer["2"]);

  // Non-operator tasks: msprof's task types, named after them, no tensor columns.
  std::map<std::string, int> types;
  for (const Row& r : rows) {
    ++types[r["Task Type"]];
    if (r["Task Type"] == "AI_CORE") continue;
    EXPECT_EQ(r["OP Type"], r["Task Type"]);
    EXPECT_EQ(r["Input Shapes"], "N/A");
  }
  EXPECT_GE(types["MEMCPY_ASYNC"], 1);
  EXPECT_EQ(types["HOSTFUNC_CALLBACK"], 1);
  for (const auto& [type, count] : types)
    EXPECT_TRUE(type == "AI_CORE" || type == "MEMCPY_ASYNC" || type == "HOSTFUNC_CALLBACK") << type;

  // task_time and op_statistic use the same vocabulary.
  for (const auto& row : rows_of(read_csv(views["task_time"]))) {
    const std::string& t = row["kernel_type"];
    EXPECT_TRUE(t == "KERNEL_AICORE" || t == "MEMCPY_ASYNC" || t == "HOSTFUNC_CALLBACK") << t;
  }
  std::map<std::string, int> gemms;
  for (const auto& row : rows_of(read_csv(views["op_statistic"]))) {
    const std::string& t = row["Core Type"];
    EXPECT_TRUE(t == "AI_CORE" || t == "MEMCPY_ASYNC" || t == "HOSTFUNC_CALLBACK") << t;
    if (row["OP Type"] == "Gemm") {
      EXPECT_EQ(row["Model Name"], "mlp_b1");  // grouped per model, as msprof's network scene
      gemms[t] += std::stoi(row["Count"]);
    }
    if (row["OP Type"] == "Add") {
      EXPECT_EQ(row["Model Name"], "N/A");
    }
  }
  EXPECT_EQ(gemms["AI_CORE"] % kRuns, 0);
  EXPECT_GE(gemms["AI_CORE"], kRuns);
  if (std::getenv("ARUN_KEEP_TEST_OUTPUT") == nullptr) fs::remove_all(dir);
}

}  // namespace
}  // namespace arun::test
