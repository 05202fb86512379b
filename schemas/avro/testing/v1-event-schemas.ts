/**
 * The hand-written Avro schemas of the v1 events, frozen as they were before the family declarations
 * (schemas/avro/event-schemas.ts at commit 19bd6f3, printed with JSON.stringify). The generated schemas must equal
 * them (same canonical form, same fingerprints, same bytes), so messages written by earlier producers still resolve.
 * Never edit: a schema change adds its previous form to WRITER_HISTORY instead.
 */
import type { AvroFamily, AvroSchemaJson } from '../event-schemas.ts';

export const V1_EVENT_SCHEMAS: Readonly<Record<AvroFamily, AvroSchemaJson>> = 
{
 "instrument": {
  "type": "record",
  "name": "Instrument",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "instrument",
    "type": "string"
   },
   {
    "name": "kind",
    "type": {
     "type": "enum",
     "name": "InstrumentKind",
     "symbols": [
      "option",
      "perp",
      "future",
      "spot"
     ]
    }
   },
   {
    "name": "strike",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "expiry",
    "type": [
     "null",
     {
      "type": "long",
      "logicalType": "timestamp-millis"
     }
    ],
    "default": null
   },
   {
    "name": "optionType",
    "type": [
     "null",
     {
      "type": "enum",
      "name": "OptionType",
      "symbols": [
       "call",
       "put"
      ]
     }
    ],
    "default": null
   },
   {
    "name": "contractSize",
    "type": "double"
   },
   {
    "name": "settlementCurrency",
    "type": "string"
   },
   {
    "name": "quoteCurrency",
    "type": "string"
   },
   {
    "name": "active",
    "type": "boolean"
   }
  ]
 },
 "option_trade": {
  "type": "record",
  "name": "OptionTrade",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "instrument",
    "type": "string"
   },
   {
    "name": "strike",
    "type": "double"
   },
   {
    "name": "expiry",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "optionType",
    "type": {
     "type": "enum",
     "name": "OptionType",
     "symbols": [
      "call",
      "put"
     ]
    }
   },
   {
    "name": "price",
    "type": "double"
   },
   {
    "name": "priceCurrency",
    "type": "string"
   },
   {
    "name": "priceUsd",
    "type": "double"
   },
   {
    "name": "size",
    "type": "double"
   },
   {
    "name": "premiumUsd",
    "type": "double"
   },
   {
    "name": "side",
    "type": {
     "type": "enum",
     "name": "TakerSide",
     "symbols": [
      "buy",
      "sell"
     ]
    }
   },
   {
    "name": "iv",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "indexPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "underlyingPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "tradeId",
    "type": "string"
   },
   {
    "name": "block",
    "type": "boolean",
    "default": false
   }
  ]
 },
 "option_ticker": {
  "type": "record",
  "name": "OptionTicker",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "instrument",
    "type": "string"
   },
   {
    "name": "strike",
    "type": "double"
   },
   {
    "name": "expiry",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "optionType",
    "type": {
     "type": "enum",
     "name": "OptionType",
     "symbols": [
      "call",
      "put"
     ]
    }
   },
   {
    "name": "markPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "markIv",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "bidIv",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "askIv",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "delta",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "gamma",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "vega",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "theta",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "openInterest",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "underlyingPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "indexPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   }
  ]
 },
 "linear_trade": {
  "type": "record",
  "name": "LinearTrade",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "market",
    "type": {
     "type": "enum",
     "name": "LinearMarket",
     "symbols": [
      "perp",
      "spot"
     ]
    }
   },
   {
    "name": "instrument",
    "type": "string"
   },
   {
    "name": "price",
    "type": "double"
   },
   {
    "name": "size",
    "type": "double"
   },
   {
    "name": "side",
    "type": {
     "type": "enum",
     "name": "TakerSide",
     "symbols": [
      "buy",
      "sell"
     ]
    }
   },
   {
    "name": "tradeId",
    "type": "string"
   }
  ]
 },
 "perp_stats": {
  "type": "record",
  "name": "PerpStats",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "instrument",
    "type": "string"
   },
   {
    "name": "openInterest",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "openInterestUsd",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "fundingRate",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "nextFundingTime",
    "type": [
     "null",
     {
      "type": "long",
      "logicalType": "timestamp-millis"
     }
    ],
    "default": null
   },
   {
    "name": "markPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   },
   {
    "name": "indexPrice",
    "type": [
     "null",
     "double"
    ],
    "default": null
   }
  ]
 },
 "liquidation": {
  "type": "record",
  "name": "Liquidation",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "instrument",
    "type": "string"
   },
   {
    "name": "side",
    "type": {
     "type": "enum",
     "name": "PositionSide",
     "symbols": [
      "long",
      "short"
     ]
    }
   },
   {
    "name": "price",
    "type": "double"
   },
   {
    "name": "size",
    "type": "double"
   }
  ]
 },
 "index": {
  "type": "record",
  "name": "IndexPrice",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "ts",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   },
   {
    "name": "kind",
    "type": {
     "type": "enum",
     "name": "IndexKind",
     "symbols": [
      "index",
      "vol_index"
     ]
    }
   },
   {
    "name": "name",
    "type": "string"
   },
   {
    "name": "value",
    "type": "double"
   }
  ]
 },
 "dead_letter": {
  "type": "record",
  "name": "DeadLetter",
  "namespace": "gex.md",
  "fields": [
   {
    "name": "venue",
    "type": "string"
   },
   {
    "name": "channel",
    "type": "string"
   },
   {
    "name": "reason",
    "type": "string"
   },
   {
    "name": "raw",
    "type": "string"
   },
   {
    "name": "encoding",
    "type": {
     "type": "enum",
     "name": "RawEncoding",
     "symbols": [
      "utf8",
      "base64"
     ]
    }
   },
   {
    "name": "receivedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "id",
    "type": "string"
   }
  ]
 },
 "snapshot": {
  "type": "record",
  "name": "AnalyticsSnapshot",
  "namespace": "gex.analytics",
  "fields": [
   {
    "name": "symbol",
    "type": "string"
   },
   {
    "name": "kind",
    "type": "string"
   },
   {
    "name": "computedAt",
    "type": {
     "type": "long",
     "logicalType": "timestamp-millis"
    }
   },
   {
    "name": "payload",
    "type": "string"
   },
   {
    "name": "id",
    "type": "string"
   }
  ]
 }
};
