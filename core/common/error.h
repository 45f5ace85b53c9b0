#pragma once

#include <QString>

#include <expected>

namespace ClusterDeck {

// A failure as a value: what went wrong, where, and in words an admin can act on.
struct Error
{
    // Unavailable: a host that does not answer now; the same work can be done once it does.
    enum class Kind {
        Transport,
        Http,
        Decode,
        Invalid,
        NotFound,
        Conflict,
        Timeout,
        Cancelled,
        Io,
        Unavailable
    };

    Kind kind = Kind::Invalid;
    QString where;   // "host h2 (unix:///run/docker.sock)", "templates/mpi.yaml:12:5 roles[1].max"
    QString message; // what the daemon / parser said
    int httpStatus = 0;

    static Error make(Kind kind, QString where, QString message, int httpStatus = 0)
    {
        return Error{kind, std::move(where), std::move(message), httpStatus};
    }

    // The object asked for does not exist (any more): Docker's 404, an etcd key or record not
    // found. Removals and lookups treat it as done rather than as a failure.
    bool isGone() const { return kind == Kind::NotFound || httpStatus == 404; }

    // Adds outer context ("launching session x: ") without losing the original place.
    Error withContext(const QString &context) const
    {
        Error e = *this;
        e.message = context + QStringLiteral(": ") + message;
        return e;
    }

    QString toString() const
    {
        return where.isEmpty() ? message : where + QStringLiteral(": ") + message;
    }

    static QString kindName(Kind kind);
};

// std::expected that cannot be dropped silently: a call that changes state and fails must be
// handled or logged, so ignoring a Result is a compile error under -Werror ([[nodiscard]] on the
// type covers every function that returns one).
template<typename T>
class [[nodiscard]] Result : public std::expected<T, Error>
{
public:
    using Base = std::expected<T, Error>;
    using Base::Base;
    Result() = default;
    Result(const Base &other)
        : Base(other)
    {}
    Result(Base &&other)
        : Base(std::move(other))
    {}
};

// Shorthand so call sites read `return fail(Error::Kind::Invalid, where, msg);`
inline std::unexpected<Error> fail(Error::Kind kind, QString where, QString message,
                                   int httpStatus = 0)
{
    return std::unexpected(Error::make(kind, std::move(where), std::move(message), httpStatus));
}

inline std::unexpected<Error> fail(Error error)
{
    return std::unexpected(std::move(error));
}

} // namespace ClusterDeck
