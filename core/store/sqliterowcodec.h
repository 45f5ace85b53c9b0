#pragma once

#include "common/error.h"
#include "records.h"

namespace ClusterDeck {

class SqliteStatement;

// Records to and from the rows of a SQLite state file. A row is read in the column order of
// SqliteSchema::kKernelColumns / kSessionColumns (hosts: SqliteStore's host query); `where` names
// the file and row in a decode error.
class SqliteRowCodec
{
public:
    static Result<KernelRecord> kernel(const SqliteStatement &s, const QString &where);
    static Result<SessionRecord> session(const SqliteStatement &s, const QString &where);
    static Result<HostRecord> host(const SqliteStatement &s, const QString &where);
    // INSERT and UPDATE of a kernel use the same parameter numbers, in kKernelColumns order.
    static void bindKernel(SqliteStatement &s, const KernelRecord &k);
};

} // namespace ClusterDeck
