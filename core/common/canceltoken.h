#pragma once

#include <QtGlobal>

#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

namespace ClusterDeck {

// Shared flag a caller sets to abort running work (an HTTP request, a launch phase, a wait)
// from any thread.
class CancelToken
{
public:
    CancelToken()
        : m_flag(std::make_shared<std::atomic_bool>(false))
    {}
    // A new token, cancelled by its own cancel() and whenever `a` or `b` is (cancelling it
    // does not cancel them).
    static CancelToken anyOf(const CancelToken &a, const CancelToken &b)
    {
        CancelToken t;
        for (const CancelToken *from : {&a, &b}) {
            t.m_parents.push_back(from->m_flag);
            t.m_parents.insert(t.m_parents.end(), from->m_parents.begin(), from->m_parents.end());
            t.m_deadlines.insert(t.m_deadlines.end(), from->m_deadlines.begin(),
                                 from->m_deadlines.end());
        }
        return t;
    }
    // A token that is also cancelled once the steady clock passes *deadline (nanoseconds of
    // std::chrono::steady_clock; 0: none yet). A lease's local deadline (LeaseDeadline) moves it
    // with every confirmed renewal: every request checks it, without I/O, before it is sent.
    static CancelToken untilDeadline(std::shared_ptr<const std::atomic<qint64>> deadline)
    {
        CancelToken t;
        t.m_deadlines.push_back(std::move(deadline));
        return t;
    }
    void cancel() const { m_flag->store(true); }
    bool isCancelled() const
    {
        if (m_flag->load())
            return true;
        for (const auto &parent : m_parents) {
            if (parent->load())
                return true;
        }
        if (!m_deadlines.empty()) {
            const qint64 now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count();
            for (const auto &deadline : m_deadlines) {
                const qint64 at = deadline->load();
                if (at != 0 && now >= at)
                    return true;
            }
        }
        return false;
    }

private:
    std::shared_ptr<std::atomic_bool> m_flag;
    std::vector<std::shared_ptr<std::atomic_bool>> m_parents;
    std::vector<std::shared_ptr<const std::atomic<qint64>>> m_deadlines;
};

} // namespace ClusterDeck
