// Custom allocator registration (spec 2.9): descriptors, their setters, binding to streams, and
// every error the spec names.
#include "acl/acl_rt_allocator.h"
#include "conformance.hpp"

namespace conformance {
namespace {

int g_object = 0;
void *allocFn(aclrtAllocator, size_t) { return nullptr; }
void freeFn(aclrtAllocator, aclrtAllocatorBlock) {}
void *adviseFn(aclrtAllocator, size_t, aclrtAllocatorAddr) { return nullptr; }
void *addrFn(aclrtAllocatorBlock) { return nullptr; }
void *otherAllocFn(aclrtAllocator, size_t) { return nullptr; }

class CustomAllocatorTest : public AclDeviceTest {
 protected:
  aclrtAllocatorDesc completeDesc(aclrtAllocatorAllocFunc alloc = &allocFn) {
    aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
    EXPECT_NE(nullptr, d);
    EXPECT_ACL_OK(aclrtAllocatorSetObjToDesc(d, &g_object));
    EXPECT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, alloc));
    EXPECT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, &freeFn));
    EXPECT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, &addrFn));
    return d;
  }
};

TEST_P(CustomAllocatorTest, DescriptorSettersRejectNullAndDeadDescriptors) {
  aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
  ASSERT_NE(nullptr, d);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(nullptr, &g_object));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(d, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(d, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetFreeFuncToDesc(d, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocAdviseFuncToDesc(d, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetAllocFuncToDesc(nullptr, &allocFn));
  EXPECT_ACL_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, &adviseFn));
  EXPECT_ACL_OK(aclrtAllocatorDestroyDesc(d));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(d)) << "destroyed twice";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorSetObjToDesc(d, &g_object)) << "a destroyed descriptor";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(nullptr));
  int notADescriptor = 0;
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorDestroyDesc(&notADescriptor));
}

TEST_P(CustomAllocatorTest, RegisterNeedsEveryMandatoryField) {
  aclrtStream s = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  aclrtAllocatorDesc d = aclrtAllocatorCreateDesc();
  ASSERT_NE(nullptr, d);
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d)) << "empty descriptor";
  ASSERT_ACL_OK(aclrtAllocatorSetObjToDesc(d, &g_object));
  ASSERT_ACL_OK(aclrtAllocatorSetAllocFuncToDesc(d, &allocFn));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d)) << "no free callback";
  ASSERT_ACL_OK(aclrtAllocatorSetFreeFuncToDesc(d, &freeFn));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, d)) << "no get-address callback";
  ASSERT_ACL_OK(aclrtAllocatorSetGetAddrFromBlockFuncToDesc(d, &addrFn));
  EXPECT_ACL_OK(aclrtAllocatorRegister(s, d)) << "advise is optional";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(nullptr, d));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorRegister(s, nullptr));
  EXPECT_ACL_OK(aclrtAllocatorDestroyDesc(d));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
}

TEST_P(CustomAllocatorTest, GetByStreamReturnsTheRegistrationUntilUnregistered) {
  aclrtStream s = nullptr, other = nullptr;
  ASSERT_ACL_OK(aclrtCreateStream(&s));
  ASSERT_ACL_OK(aclrtCreateStream(&other));
  aclrtAllocatorDesc d = completeDesc();
  ASSERT_ACL_OK(aclrtAllocatorSetAllocAdviseFuncToDesc(d, &adviseFn));
  ASSERT_ACL_OK(aclrtAllocatorRegister(s, d));

  aclrtAllocatorDesc gotDesc = nullptr;
  aclrtAllocator gotObj = nullptr;
  aclrtAllocatorAllocFunc gotAlloc = nullptr;
  aclrtAllocatorFreeFunc gotFree = nullptr;
  aclrtAllocatorAllocAdviseFunc gotAdvise = nullptr;
  aclrtAllocatorGetAddrFromBlockFunc gotAddr = nullptr;
  ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &gotDesc, &gotObj, &gotAlloc, &gotFree, &gotAdvise, &gotAddr));
  EXPECT_EQ(d, gotDesc);
  EXPECT_EQ(static_cast<void *>(&g_object), gotObj);
  EXPECT_EQ(&allocFn, gotAlloc);
  EXPECT_EQ(&freeFn, gotFree);
  EXPECT_EQ(&adviseFn, gotAdvise);
  EXPECT_EQ(&addrFn, gotAddr);
  // Optional outputs may be NULL.
  ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &gotDesc, nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, nullptr, &gotObj, nullptr, nullptr, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtAllocatorGetByStream(nullptr, &gotDesc, nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM,
             aclrtAllocatorGetByStream(other, &gotDesc, nullptr, nullptr, nullptr, nullptr, nullptr))
      << "a stream without a registration";

  // The registration is a copy: destroying the descriptor keeps it, and the stale pointer comes back.
  ASSERT_ACL_OK(aclrtAllocatorDestroyDesc(d));
  ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &gotDesc, nullptr, &gotAlloc, nullptr, nullptr, nullptr));
  EXPECT_EQ(d, gotDesc);
  EXPECT_EQ(&allocFn, gotAlloc);

  // A later registration replaces the earlier one.
  aclrtAllocatorDesc d2 = completeDesc(&otherAllocFn);
  ASSERT_ACL_OK(aclrtAllocatorRegister(s, d2));
  ASSERT_ACL_OK(aclrtAllocatorGetByStream(s, &gotDesc, nullptr, &gotAlloc, nullptr, &gotAdvise, nullptr));
  EXPECT_EQ(d2, gotDesc);
  EXPECT_EQ(&otherAllocFn, gotAlloc);
  EXPECT_EQ(nullptr, gotAdvise) << "the new descriptor has no advise callback";

  ASSERT_ACL_OK(aclrtAllocatorUnregister(s));
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorGetByStream(s, &gotDesc, nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_ACL_OK(aclrtAllocatorUnregister(s)) << "unregistering twice is a no-op";
  EXPECT_ACL(ACL_ERROR_INVALID_PARAM, aclrtAllocatorUnregister(nullptr));
  EXPECT_ACL_OK(aclrtAllocatorDestroyDesc(d2));
  EXPECT_ACL_OK(aclrtDestroyStream(s));
  EXPECT_ACL_OK(aclrtDestroyStream(other));
}

}  // namespace
ARUN_CONFORMANCE_INSTANTIATE(CustomAllocatorTest);
}  // namespace conformance
