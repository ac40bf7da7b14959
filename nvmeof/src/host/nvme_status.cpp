// Status names follow the NVMe Base and NVMe-oF specifications; the numbers come from libnvme.
#include "skiff/nvmeof/host/nvme_status.hpp"

#include "skiff/nvmeof/wire/command.hpp"
#include "skiff/nvmeof/wire/tcp_pdu.hpp"

#include <nvme/types.h>

#include <cstdio>

namespace skiff::nvmeof::host {

const char *status_type_name(uint8_t sct) {
    switch (sct) {
    case NVME_SCT_GENERIC:
        return "generic";
    case NVME_SCT_CMD_SPECIFIC:
        return "command specific";
    case NVME_SCT_MEDIA:
        return "media and data integrity";
    case NVME_SCT_PATH:
        return "path related";
    case NVME_SCT_VS:
        return "vendor specific";
    default:
        return "reserved";
    }
}

namespace {

const char *generic_name(uint8_t sc) {
    switch (sc) {
    case NVME_SC_SUCCESS:
        return "Successful Completion";
    case NVME_SC_INVALID_OPCODE:
        return "Invalid Command Opcode";
    case NVME_SC_INVALID_FIELD:
        return "Invalid Field in Command";
    case NVME_SC_CMDID_CONFLICT:
        return "Command ID Conflict";
    case NVME_SC_DATA_XFER_ERROR:
        return "Data Transfer Error";
    case NVME_SC_INTERNAL:
        return "Internal Error";
    case NVME_SC_ABORT_REQ:
        return "Command Abort Requested";
    case NVME_SC_ABORT_QUEUE:
        return "Command Aborted due to SQ Deletion";
    case NVME_SC_INVALID_NS:
        return "Invalid Namespace or Format";
    case NVME_SC_CMD_SEQ_ERROR:
        return "Command Sequence Error";
    case NVME_SC_SGL_INVALID_LAST:
        return "Invalid SGL Segment Descriptor";
    case NVME_SC_SGL_INVALID_COUNT:
        return "Invalid Number of SGL Descriptors";
    case NVME_SC_SGL_INVALID_DATA:
        return "Data SGL Length Invalid";
    case NVME_SC_SGL_INVALID_TYPE:
        return "SGL Descriptor Type Invalid";
    case NVME_SC_SGL_INVALID_OFFSET:
        return "SGL Offset Invalid";
    case NVME_SC_HOSTID_FORMAT:
        return "Host Identifier Inconsistent Format";
    case NVME_SC_KAT_EXPIRED:
        return "Keep Alive Timer Expired";
    case NVME_SC_KAT_INVALID:
        return "Keep Alive Timeout Invalid";
    case NVME_SC_NS_WRITE_PROTECTED:
        return "Namespace is Write Protected";
    case NVME_SC_TRAN_TPORT_ERROR:
        return "Transient Transport Error";
    case NVME_SC_LBA_RANGE:
        return "LBA Out of Range";
    case NVME_SC_CAP_EXCEEDED:
        return "Capacity Exceeded";
    case NVME_SC_NS_NOT_READY:
        return "Namespace Not Ready";
    case NVME_SC_RESERVATION_CONFLICT:
        return "Reservation Conflict";
    default:
        return "unknown generic status";
    }
}

const char *command_specific_name(uint8_t sc, bool fabrics) {
    if (fabrics) {
        switch (sc) {
        case NVME_SC_CONNECT_FORMAT:
            return "Incompatible Format";
        case NVME_SC_CONNECT_CTRL_BUSY:
            return "Controller Busy";
        case NVME_SC_CONNECT_INVALID_PARAM:
            return "Connect Invalid Parameters";
        case NVME_SC_CONNECT_RESTART_DISC:
            return "Connect Restart Discovery";
        case NVME_SC_CONNECT_INVALID_HOST:
            return "Connect Invalid Host";
        case NVME_SC_DISCOVERY_RESTART:
            return "Discover Restart";
        case NVME_SC_AUTH_REQUIRED:
            return "Authentication Required";
        default:
            break;
        }
    }
    switch (sc) {
    case NVME_SC_QID_INVALID:
        return "Invalid Queue Identifier";
    case NVME_SC_QUEUE_SIZE:
        return "Invalid Queue Size";
    case NVME_SC_ASYNC_LIMIT:
        return "Asynchronous Event Request Limit Exceeded";
    case NVME_SC_INVALID_LOG_PAGE:
        return "Invalid Log Page";
    case NVME_SC_INVALID_FORMAT:
        return "Invalid Format";
    case NVME_SC_FEATURE_NOT_SAVEABLE:
        return "Feature Identifier Not Saveable";
    case NVME_SC_FEATURE_NOT_CHANGEABLE:
        return "Feature Not Changeable";
    case NVME_SC_FEATURE_NOT_PER_NS:
        return "Feature Not Namespace Specific";
    case NVME_SC_BAD_ATTRIBUTES:
        return "Conflicting Attributes";
    case NVME_SC_INVALID_PI:
        return "Invalid Protection Information";
    case NVME_SC_READ_ONLY:
        return "Attempted Write to Read Only Range";
    case NVME_SC_CMD_SIZE_LIMIT_EXCEEDED:
        return "Command Size Limit Exceeded";
    default:
        return "unknown command specific status";
    }
}

const char *media_name(uint8_t sc) {
    switch (sc) {
    case NVME_SC_WRITE_FAULT:
        return "Write Fault";
    case NVME_SC_READ_ERROR:
        return "Unrecovered Read Error";
    case NVME_SC_COMPARE_FAILED:
        return "Compare Failure";
    case NVME_SC_ACCESS_DENIED:
        return "Access Denied";
    case NVME_SC_UNWRITTEN_BLOCK:
        return "Deallocated or Unwritten Logical Block";
    default:
        return "unknown media status";
    }
}

const char *path_name(uint8_t sc) {
    switch (sc) {
    case NVME_SC_ANA_INTERNAL_PATH_ERROR:
        return "Internal Path Error";
    case NVME_SC_ANA_PERSISTENT_LOSS:
        return "Asymmetric Access Persistent Loss";
    case NVME_SC_ANA_INACCESSIBLE:
        return "Asymmetric Access Inaccessible";
    case NVME_SC_ANA_TRANSITION:
        return "Asymmetric Access Transition";
    case NVME_SC_CTRL_PATH_ERROR:
        return "Controller Pathing Error";
    case NVME_SC_HOST_PATH_ERROR:
        return "Host Pathing Error";
    case NVME_SC_CMD_ABORTED_BY_HOST:
        return "Command Aborted By Host";
    default:
        return "unknown path status";
    }
}

} // namespace

const char *status_code_name(uint8_t sct, uint8_t sc, bool fabrics) {
    switch (sct) {
    case NVME_SCT_GENERIC:
        return generic_name(sc);
    case NVME_SCT_CMD_SPECIFIC:
        return command_specific_name(sc, fabrics);
    case NVME_SCT_MEDIA:
        return media_name(sc);
    case NVME_SCT_PATH:
        return path_name(sc);
    default:
        return "unknown status";
    }
}

std::string describe_status(uint16_t cqe_status, bool fabrics) {
    using wire::Status;
    const uint8_t sct = Status::sct(cqe_status);
    const uint8_t sc = Status::sc(cqe_status);
    char buf[160];
    std::snprintf(buf, sizeof(buf), "sct %Xh (%s) sc %02Xh (%s)%s", sct, status_type_name(sct), sc,
                  status_code_name(sct, sc, fabrics), Status::dnr(cqe_status) ? ", DNR" : "");
    return buf;
}

const char *term_req_fes_name(uint16_t fes) {
    using namespace wire::tcp;
    switch (fes) {
    case kFesInvalidHeaderField:
        return "Invalid PDU Header Field";
    case kFesPduSequenceError:
        return "PDU Sequence Error";
    case kFesHeaderDigestError:
        return "Header Digest Error";
    case kFesDataOutOfRange:
        return "Data Transfer Out of Range";
    case kFesR2TLimitExceeded:
        return "R2T Limit Exceeded / Data Transfer Limit Exceeded";
    case kFesUnsupportedParameter:
        return "Unsupported Parameter";
    default:
        return "unknown fatal error status";
    }
}

} // namespace skiff::nvmeof::host
