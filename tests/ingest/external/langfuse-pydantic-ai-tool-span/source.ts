      const traceId = "abcdef1234567890abcdef1234567890";

      const pydanticAiToolSpan = {
        resource: {
          attributes: [
            {
              key: "telemetry.sdk.language",
              value: { stringValue: "python" },
            },
            {
              key: "telemetry.sdk.name",
              value: { stringValue: "opentelemetry" },
            },
            {
              key: "telemetry.sdk.version",
              value: { stringValue: "1.36.0" },
            },
          ],
        },
        scopeSpans: [
          {
            scope: {
              name: "pydantic-ai",
              version: "0.7.4",
              attributes: [],
            },
            spans: [
              {
                traceId: Buffer.from(traceId, "hex"),
                spanId: Buffer.from("1234567890abcdef", "hex"),
                parentSpanId: Buffer.from("fedcba0987654321", "hex"),
                name: "tool-call",
                kind: 1,
                startTimeUnixNano: {
                  low: 1000000,
                  high: 406528574,
                  unsigned: true,
                },
                endTimeUnixNano: {
                  low: 2000000,
                  high: 406528574,
                  unsigned: true,
                },
                attributes: [
                  {
                    key: "gen_ai.tool.name",
                    value: { stringValue: "roulette_wheel" },
                  },
                  {
                    key: "gen_ai.tool.call.id",
                    value: { stringValue: "call_idvalue" },
                  },
                  {
                    key: "tool_arguments",
                    value: { stringValue: '{"square": 18}' },
                  },
                  {
                    key: "tool_response",
                    value: { stringValue: "winner" },
                  },
                  {
                    key: "logfire.msg",
                    value: { stringValue: "running tool: roulette_wheel" },
                  },
                ],
                events: [],
                status: { code: 1 },
              },
            ],
          },
        ],
      };
