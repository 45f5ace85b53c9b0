#pragma once

#include "common/error.h"
#include "etcdtypes.h"

#include <QJsonObject>

// Request building and response decoding for the etcd v3 JSON gateway (grpc-gateway): bytes are
// base64, int64/uint64 fields are JSON strings, zero values are omitted. Pure: no I/O.
namespace ClusterDeck::Etcd::Json {

// An error body of the gateway: {"error": "...", "message": "...", "code": 16}.
struct GatewayError
{
    int code = 0; // gRPC status code
    QString message;
};

// gRPC codes the client reacts to.
inline constexpr int kGrpcInvalidArgument = 3;
inline constexpr int kGrpcNotFound = 5;
inline constexpr int kGrpcPermissionDenied = 7;
inline constexpr int kGrpcFailedPrecondition = 9;
inline constexpr int kGrpcOutOfRange = 11;
inline constexpr int kGrpcUnavailable = 14;
inline constexpr int kGrpcUnauthenticated = 16;

QString encodeBytes(const QByteArray &bytes);
Result<QByteArray> decodeBytes(const QJsonValue &value, const QString &field);
// int64 as a string (the gateway) or a number (tolerated); missing: 0.
Result<qint64> decodeInt64(const QJsonValue &value, const QString &field);
Result<quint64> decodeUInt64(const QJsonValue &value, const QString &field);

Result<QJsonObject> parseObject(const QByteArray &body);
std::optional<GatewayError> decodeError(const QJsonObject &object);
// True when the token must be fetched again (expired, invalidated by a password change, …).
bool isInvalidTokenError(const GatewayError &error);

QJsonObject encodePut(const QByteArray &key, const QByteArray &value, const PutOptions &options);
QJsonObject encodeRange(const QByteArray &key, const RangeOptions &options);
QJsonObject encodeDelete(const QByteArray &key, const DeleteOptions &options);
QJsonObject encodeCompare(const TxnCompare &compare);
QJsonObject encodeTxnOp(const TxnOp &op);
QJsonObject encodeTxn(const TxnRequest &txn);
QJsonObject encodeWatchCreate(const QByteArray &key, const QByteArray &rangeEnd,
                              qint64 startRevision, bool prevKv);

Result<ResponseHeader> decodeHeader(const QJsonObject &object);
Result<KeyValue> decodeKeyValue(const QJsonObject &object);
Result<PutResult> decodePut(const QJsonObject &object);
Result<RangeResult> decodeRange(const QJsonObject &object);
Result<DeleteResult> decodeDelete(const QJsonObject &object);
Result<TxnResult> decodeTxn(const QJsonObject &object);
Result<Lease> decodeLeaseGrant(const QJsonObject &object);
// /v3/lease/keepalive answers {"result": {...}}; a missing TTL means the lease is gone.
Result<Lease> decodeLeaseKeepAlive(const QJsonObject &object);
Result<LeaseTimeToLive> decodeLeaseTimeToLive(const QJsonObject &object);
Result<QString> decodeAuthenticate(const QJsonObject &object);
// One line of the watch stream: {"result": {...}} or {"error": {...}}.
Result<WatchResponse> decodeWatchResponse(const QJsonObject &object);

} // namespace ClusterDeck::Etcd::Json
