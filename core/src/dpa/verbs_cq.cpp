// A raw verbs CQ delivering into a DPA completion context (skiff/core/dpa_verbs_cq.hpp): the
// poller that runs on an EU while the CQ is busy, and the process-wide waiter thread that watches
// the completion channels of idle CQs.
#ifdef SKIFF_HAVE_RDMA
#include <skiff/core/dpa_verbs_cq.hpp>

#include "dpa/completion.hpp"
#include "dpa/dpa_context.hpp"
#include "dpa/eu_engine.hpp"
#include "dpa/thread.hpp"

#include <infiniband/verbs.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <new>
#include <sched.h>
#include <thread>
#include <vector>

static_assert(sizeof(ibv_wc) <= skiff::core::dpa::kRawWcBytes,
              "CompletionSlot::raw_wc cannot hold an ibv_wc");

namespace skiff::core::dpa {

using Clock = std::chrono::steady_clock;

struct VerbsCqAttachment final : Runnable {
    doca_dpa_completion *comp = nullptr;
    ibv_cq *cq = nullptr;
    ibv_comp_channel *channel = nullptr;
    VerbsWcClassifier classify = default_verbs_classifier;
    void *classify_arg = nullptr;
    unsigned batch = 16;
    Eu *eu = nullptr;
    Clock::duration spin{};
    Clock::time_point last_wc{}; // EU only

    std::atomic<bool> queued{false};
    std::atomic<bool> running{false};
    std::atomic<bool> inline_polling{false}; // drain_verbs_cq_inline
    std::atomic<bool> stopping{false};

    // Device code on this attachment's EU found its context empty (drain_verbs_cq_inline). The
    // poller runs on the same EU, so the two never poll the CQ at once.
    bool drain_inline(Eu *current) {
        if (current != eu) return false;
        inline_polling.store(true, std::memory_order_seq_cst);
        bool got = !stopping.load(std::memory_order_seq_cst) && drain() > 0;
        inline_polling.store(false, std::memory_order_release);
        return got;
    }

    // Any thread: puts the poller on its EU unless it is already queued.
    void wake() {
        if (stopping.load(std::memory_order_acquire)) return;
        if (!queued.exchange(true, std::memory_order_acq_rel)) eu->push(this);
    }

    void run(Eu &) override {
        running.store(true, std::memory_order_seq_cst);
        // A wake from now on queues the next run; an exchange so that a wake that found `queued`
        // set happens before this poll (doca_dpa_thread::run says why).
        queued.exchange(false, std::memory_order_seq_cst);
        if (!stopping.load(std::memory_order_acquire)) poll();
        running.store(false, std::memory_order_release);
    }

  private:
    int drain() {
        ibv_wc wcs[64];
        int n = ibv_poll_cq(cq, static_cast<int>(batch), wcs);
        for (int i = 0; i < n; ++i) deliver(wcs[i]);
        if (n < 0) dpa_logger().error("verbs CQ on the DPA: ibv_poll_cq failed ({})", n);
        return n;
    }

    void deliver(const ibv_wc &wc) {
        VerbsCompletionFields f;
        if (!classify(classify_arg, wc, f)) return;
        if (!comp->dpa->usable()) return; // fatal state: nobody consumes any more
        comp->post(f.type, f.user_data, f.immediate, &wc);
    }

    // Busy: poll and stay on the EU. Idle for longer than the spin: arm the CQ, poll once more
    // (a completion that came before the arming produces no event), and leave the EU to the
    // waiter thread.
    void poll() {
        if (drain() > 0) {
            last_wc = Clock::now();
            wake();
            return;
        }
        if (Clock::now() - last_wc < spin) {
            wake();
            return;
        }
        if (ibv_req_notify_cq(cq, 0) != 0) {
            dpa_logger().error("verbs CQ on the DPA: ibv_req_notify_cq: {}", std::strerror(errno));
            wake(); // cannot sleep on the channel: keep polling
            return;
        }
        if (drain() > 0) {
            last_wc = Clock::now();
            wake();
        }
    }
};

namespace {

// Watches the completion channels of attached CQs (epoll) and puts a CQ's poller back on its EU
// when the channel reports an event. Only the idle -> busy transition goes through here.
class ChannelWaiter {
  public:
    static ChannelWaiter &get() {
        static ChannelWaiter waiter;
        return waiter;
    }

    doca_error_t add(VerbsCqAttachment *a) {
        std::lock_guard lock(mu_);
        if (epfd_ < 0) return DOCA_ERROR_DRIVER;
        for (auto *other : atts_) {
            if (other->cq == a->cq) {
                dpa_logger().error("attach_verbs_cq: the CQ is already attached to a DPA completion context");
                return DOCA_ERROR_INVALID_VALUE;
            }
        }
        if (users_of(a->channel) == 0) {
            int flags = fcntl(a->channel->fd, F_GETFL);
            fcntl(a->channel->fd, F_SETFL, flags | O_NONBLOCK);
            epoll_event ev{};
            ev.events = EPOLLIN;
            ev.data.ptr = a->channel;
            if (epoll_ctl(epfd_, EPOLL_CTL_ADD, a->channel->fd, &ev) != 0) {
                dpa_logger().error("attach_verbs_cq: watching the completion channel: {}",
                                   std::strerror(errno));
                return DOCA_ERROR_DRIVER;
            }
        }
        atts_.push_back(a);
        return DOCA_SUCCESS;
    }

    // After this, no event of a's CQ is pending (read and acknowledged) and a is never woken.
    void remove(VerbsCqAttachment *a) {
        std::lock_guard lock(mu_);
        atts_.erase(std::remove(atts_.begin(), atts_.end(), a), atts_.end());
        drain_locked(a->channel);
        if (users_of(a->channel) == 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, a->channel->fd, nullptr);
    }

  private:
    ChannelWaiter() {
        epfd_ = epoll_create1(EPOLL_CLOEXEC);
        stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (epfd_ < 0 || stop_fd_ < 0) {
            dpa_logger().error("DPA verbs CQ waiter: epoll/eventfd: {}", std::strerror(errno));
            if (epfd_ >= 0) close(epfd_);
            epfd_ = -1;
            return;
        }
        epoll_event ev{};
        ev.events = EPOLLIN;
        ev.data.ptr = nullptr; // the stop event
        epoll_ctl(epfd_, EPOLL_CTL_ADD, stop_fd_, &ev);
        thread_ = std::thread([this] { loop(); });
        pthread_setname_np(thread_.native_handle(), "dpa-cq-wait");
    }

    ~ChannelWaiter() {
        if (thread_.joinable()) {
            uint64_t one = 1;
            [[maybe_unused]] ssize_t w = write(stop_fd_, &one, sizeof one);
            thread_.join();
        }
        if (epfd_ >= 0) close(epfd_);
        if (stop_fd_ >= 0) close(stop_fd_);
    }

    unsigned users_of(const ibv_comp_channel *ch) const {
        return static_cast<unsigned>(
            std::count_if(atts_.begin(), atts_.end(), [ch](auto *x) { return x->channel == ch; }));
    }

    // Reads every pending event of the channel, acknowledges it at once (ibv_destroy_cq waits for
    // acknowledgements) and wakes the poller of its CQ.
    void drain_locked(ibv_comp_channel *ch) {
        ibv_cq *cq = nullptr;
        void *cq_ctx = nullptr;
        while (ibv_get_cq_event(ch, &cq, &cq_ctx) == 0) {
            ibv_ack_cq_events(cq, 1);
            for (auto *a : atts_)
                if (a->cq == cq) a->wake();
        }
    }

    void loop() {
        epoll_event evs[16];
        for (;;) {
            int n = epoll_wait(epfd_, evs, 16, -1);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) {
                dpa_logger().error("DPA verbs CQ waiter: epoll_wait: {}", std::strerror(errno));
                return;
            }
            std::lock_guard lock(mu_);
            for (int i = 0; i < n; ++i) {
                if (evs[i].data.ptr == nullptr) return;
                auto *ch = static_cast<ibv_comp_channel *>(evs[i].data.ptr);
                if (users_of(ch) != 0) drain_locked(ch);
            }
        }
    }

    std::mutex mu_; // control path and the idle -> busy wake; never taken by a busy poller
    std::vector<VerbsCqAttachment *> atts_;
    int epfd_ = -1;
    int stop_fd_ = -1;
    std::thread thread_;
};

} // namespace

bool default_verbs_classifier(void *, const ibv_wc &wc, VerbsCompletionFields &out) {
    bool imm = (wc.wc_flags & IBV_WC_WITH_IMM) != 0;
    out.user_data = wc.qp_num;
    out.immediate = imm ? ntohl(wc.imm_data) : 0;
    if (wc.status != IBV_WC_SUCCESS)
        out.type = DOCA_DPA_DEV_COMP_SEND_ERR;
    else if (wc.opcode == IBV_WC_RECV)
        out.type = imm ? DOCA_DPA_DEV_COMP_RECV_SEND_IMM : DOCA_DPA_DEV_COMP_RECV_SEND;
    else if (wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM)
        out.type = DOCA_DPA_DEV_COMP_RECV_RDMA_WRITE_IMM;
    else
        out.type = DOCA_DPA_DEV_COMP_SEND;
    return true;
}

bool drain_verbs_cq_inline(VerbsCqAttachment *attachment, Eu *current) {
    return attachment->drain_inline(current);
}

doca_error_t attach_verbs_cq(doca_dpa_completion *comp, const VerbsCqConfig &config,
                             VerbsCqAttachment **out) {
    if (!comp || !out || !config.cq || !config.channel || config.poll_batch == 0 || config.poll_batch > 64) {
        dpa_logger().error("attach_verbs_cq: a completion context, a CQ, its channel, an output and a "
                           "poll_batch in 1..64 are needed");
        return DOCA_ERROR_INVALID_VALUE;
    }
    if (auto r = check_usable(comp->dpa); r != DOCA_SUCCESS) return r;
    if (!comp->started) {
        dpa_logger().error("attach_verbs_cq: start the DPA completion context first");
        return DOCA_ERROR_BAD_STATE;
    }
    auto *a = new (std::nothrow) VerbsCqAttachment();
    if (!a) return DOCA_ERROR_NO_MEMORY;
    a->comp = comp;
    a->cq = config.cq;
    a->channel = config.channel;
    if (config.classify) a->classify = config.classify;
    a->classify_arg = config.classify_arg;
    a->batch = config.poll_batch;
    doca_dpa_thread *t = comp->thread;
    a->eu = t && t->home ? t->home : &comp->dpa->eus().next();
    a->spin = std::chrono::microseconds(a->eu->spin_us());
    if (auto r = ChannelWaiter::get().add(a); r != DOCA_SUCCESS) {
        delete a;
        return r;
    }
    comp->attached.fetch_add(1);
    comp->dpa->objects.fetch_add(1);
    skiff::core::dpa::VerbsCqAttachment *none = nullptr;
    comp->verbs.compare_exchange_strong(none, a); // the first one: device code polls it inline
    a->last_wc = Clock::now();
    a->wake(); // start busy: the poller arms the CQ once it has been idle for the spin
    *out = a;
    return DOCA_SUCCESS;
}

doca_error_t detach_verbs_cq(VerbsCqAttachment *a) {
    if (!a) return DOCA_ERROR_INVALID_VALUE;
    ChannelWaiter::get().remove(a);
    a->stopping.store(true, std::memory_order_seq_cst);
    // A queued run still happens (the EU runs while the attachment keeps its DPA context started)
    // and sees `stopping`.
    VerbsCqAttachment *self = a;
    a->comp->verbs.compare_exchange_strong(self, nullptr);
    while (a->queued.load(std::memory_order_seq_cst) || a->running.load(std::memory_order_seq_cst) ||
           a->inline_polling.load(std::memory_order_seq_cst))
        sched_yield();
    a->comp->attached.fetch_sub(1);
    a->comp->dpa->objects.fetch_sub(1);
    delete a;
    return DOCA_SUCCESS;
}

} // namespace skiff::core::dpa

#endif // SKIFF_HAVE_RDMA
