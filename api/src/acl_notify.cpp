// Spec part 2, 4.5 (Notify and CntNotify) and 4.6 (stream-ordered value write / wait). Checks the
// arguments the ACL layer checks (NULL pointers: ACL_ERROR_INVALID_PARAM), in the spec's order;
// pointers CANN checks only in its runtime core are ACL_ERROR_RT_PARAM_INVALID here too.
#include <string>

#include "api_call.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtCreateNotify(aclrtNotify* notify, uint64_t flag) {
  return api_call("aclrtCreateNotify", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    return rt::create_notify(flag, notify);
  });
}

aclError aclrtDestroyNotify(aclrtNotify notify) {
  return api_call("aclrtDestroyNotify", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    return rt::destroy_notify(notify);
  });
}

aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream) {
  return api_call("aclrtRecordNotify", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    return rt::record_notify(notify, stream);
  });
}

aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout) {
  return api_call("aclrtWaitAndResetNotify", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    return rt::wait_and_reset_notify(notify, stream, timeout);
  });
}

aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t* notifyId) {
  return api_call("aclrtGetNotifyId", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    if (notifyId == nullptr) return invalid_param("notifyId is NULL");
    return rt::notify_id(notify, notifyId);
  });
}

aclError aclrtNotifyBatchReset(aclrtNotify* notifies, size_t num) {
  return api_call("aclrtNotifyBatchReset", [&] {
    if (notifies == nullptr) return invalid_param("notifies is NULL");
    return rt::reset_notifies(notifies, num);
  });
}

aclError aclrtNotifyGetExportKey(aclrtNotify notify, char* key, size_t len, uint64_t flags) {
  return api_call("aclrtNotifyGetExportKey", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    if (key == nullptr) return invalid_param("key is NULL");
    return rt::notify_export_key(notify, key, len, flags);
  });
}

aclError aclrtNotifyImportByKey(aclrtNotify* notify, const char* key, uint64_t flags) {
  return api_call("aclrtNotifyImportByKey", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    if (key == nullptr) return invalid_param("key is NULL");
    return rt::notify_import(notify, key, flags);
  });
}

aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t* pid, size_t num) {
  return api_call("aclrtNotifySetImportPid", [&] {
    if (notify == nullptr) return invalid_param("notify is NULL");
    if (pid == nullptr) return invalid_param("pid is NULL");
    return rt::notify_set_import_pids(notify, pid, num);
  });
}

aclError aclrtNotifySetImportPidInterServer(aclrtNotify notify, aclrtServerPid* serverPids, size_t num) {
  // No ACL-level checks in CANN: every argument error is the runtime's 107000.
  return api_call("aclrtNotifySetImportPidInterServer",
                  [&] { return rt::notify_set_import_pids_inter_server(notify, serverPids, num); });
}

aclError aclrtCntNotifyCreate(aclrtCntNotify* cntNotify, uint64_t flag) {
  return api_call("aclrtCntNotifyCreate", [&] {
    if (flag != 0) return rt_param_invalid("flag is " + std::to_string(flag) + "; it is reserved and must be 0");
    if (cntNotify == nullptr) return rt_param_invalid("cntNotify is NULL");
    return rt::cnt_notify_unsupported(true);
  });
}

aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify) {
  return api_call("aclrtCntNotifyDestroy", [&] {
    if (cntNotify == nullptr) return rt_param_invalid("cntNotify is NULL");
    return rt::cnt_notify_unsupported(false);
  });
}

aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream, aclrtCntNotifyRecordInfo* info) {
  (void)stream;
  return api_call("aclrtCntNotifyRecord", [&] {
    if (info == nullptr) return invalid_param("info is NULL");
    if (cntNotify == nullptr) return rt_param_invalid("cntNotify is NULL");
    const auto mode = static_cast<uint32_t>(info->mode);
    if (mode != ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE && mode != ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE &&
        mode != ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE && mode != ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE) {
      return rt_param_invalid("info->mode " + std::to_string(mode) + " is not an aclrtCntNotifyRecordMode");
    }
    return rt::cnt_notify_unsupported(false);
  });
}

aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream, aclrtCntNotifyWaitInfo* info) {
  (void)stream;
  return api_call("aclrtCntNotifyWaitWithTimeout", [&] {
    if (info == nullptr) return invalid_param("info is NULL");
    if (cntNotify == nullptr) return rt_param_invalid("cntNotify is NULL");
    const auto mode = static_cast<uint32_t>(info->mode);
    if (mode > ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE) {
      return rt_param_invalid("info->mode " + std::to_string(mode) + " is not an aclrtCntNotifyWaitMode");
    }
    return rt::cnt_notify_unsupported(false);
  });
}

aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream) {
  (void)stream;
  return api_call("aclrtCntNotifyReset", [&] {
    if (cntNotify == nullptr) return rt_param_invalid("cntNotify is NULL");
    return rt::cnt_notify_unsupported(false);
  });
}

aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t* notifyId) {
  return api_call("aclrtCntNotifyGetId", [&] {
    if (cntNotify == nullptr) return rt_param_invalid("cntNotify is NULL");
    if (notifyId == nullptr) return rt_param_invalid("notifyId is NULL");
    return rt::cnt_notify_unsupported(false);
  });
}

aclError aclrtValueWrite(void* devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
  return api_call("aclrtValueWrite", [&] {
    if (devAddr == nullptr) return invalid_param("devAddr is NULL");
    if (flag != 0) return rt_param_invalid("flag is " + std::to_string(flag) + "; it is reserved and must be 0");
    return rt::value_write(devAddr, value, stream);
  });
}

aclError aclrtValueWait(void* devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
  return api_call("aclrtValueWait", [&] {
    if (devAddr == nullptr) return invalid_param("devAddr is NULL");
    if (flag > ACL_STREAM_WAIT_VALUE_NOR) {
      return rt_param_invalid("flag " + std::to_string(flag) + " is not an ACL_STREAM_WAIT_VALUE_* condition");
    }
    return rt::value_wait(devAddr, value, flag, stream);
  });
}

}  // extern "C"
