/*
 * ascend-run: CANN ACL-compatible public header.
 * User-supplied device memory allocators: describe the allocator with callbacks and
 * bind it to a stream; operator and model execution on that stream then take their
 * workspace memory from it.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_
#define INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Callback types (the handle types themselves come from acl_base_rt.h). */
/* Return a block of at least size bytes, or NULL. */
typedef void *(*aclrtAllocatorAllocFunc)(aclrtAllocator allocator, size_t size);
/* Give a block back. */
typedef void (*aclrtAllocatorFreeFunc)(aclrtAllocator allocator, aclrtAllocatorBlock block);
/* Like alloc, with a preferred address. */
typedef void *(*aclrtAllocatorAllocAdviseFunc)(aclrtAllocator allocator, size_t size, aclrtAllocatorAddr addr);
/* Device address of a block. */
typedef void *(*aclrtAllocatorGetAddrFromBlockFunc)(aclrtAllocatorBlock block);

/* Descriptor life cycle; the descriptor is only needed until aclrtAllocatorRegister. */
ACL_FUNC_VISIBILITY aclrtAllocatorDesc aclrtAllocatorCreateDesc();
ACL_FUNC_VISIBILITY aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc);

/* Fill the descriptor. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                              aclrtAllocatorAllocFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                             aclrtAllocatorFreeFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                    aclrtAllocatorAllocAdviseFunc func);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                                         aclrtAllocatorGetAddrFromBlockFunc func);

/* Bind to / unbind from a stream, and read back what is bound. */
ACL_FUNC_VISIBILITY aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorUnregister(aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                                       aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                                       aclrtAllocatorFreeFunc *freeFunc,
                                                       aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                                       aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_ */
