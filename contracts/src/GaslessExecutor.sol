// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IPermit2} from "./IPermit2.sol";
import {XchainOrder} from "./XchainOrder.sol";
import {XchainRouter} from "./XchainRouter.sol";

/// @title The gasless executor: a source chain's `gasless_executor`.
/// @notice The relayer calls `execute` with the user's Permit2 signature (D5, D11). The user
/// signed a PermitWitnessTransferFrom of `amountIn` of the source token to this contract with the
/// order itself as witness, so the pull below only succeeds for exactly that order. Of `amountIn`
/// the relay fee goes to `feeRecipient` and the rest is deposited through the router in the
/// user's name; the executor keeps nothing. Everything it is configured with is immutable (in the
/// code), so the runtime code works when the local chains copy it to a fixed address.
contract GaslessExecutor {
    using SafeERC20 for IERC20;

    /// @dev The EIP-712 type of the witness: the published Order struct, field for field. Must
    /// equal ORDER_EIP712_TYPE of libs/evm-gasless (a test signs with the lib and executes here).
    string public constant ORDER_TYPE =
        "Order(uint8 version,bytes32 salt,uint64 srcChainId,uint64 dstChainId,bytes32 srcToken,bytes32 dstToken,"
        "uint256 amountIn,uint256 amountOut,uint256 minAmountOut,bytes32 recipient,bytes32 refundAddress,"
        "uint256 gasDrop,uint8 tradeType,uint16 slippageBps,uint16 srcSlippageBps,uint256 dstGasNative,"
        "uint256 sponsorGas,bool gasless,bool sponsorFees,bytes32 referrersHash,uint64 issuedAt,uint64 expiresAt,"
        "bytes32 depositTarget)";
    bytes32 public constant ORDER_TYPEHASH = keccak256(bytes(ORDER_TYPE));
    /// @dev Permit2 appends this to "PermitWitnessTransferFrom(TokenPermissions permitted,address
    /// spender,uint256 nonce,uint256 deadline,": the witness field, then every referenced struct
    /// sorted by name (Order before TokenPermissions), as EIP-712 requires.
    string public constant WITNESS_TYPE_STRING =
        string.concat("Order witness)", ORDER_TYPE, "TokenPermissions(address token,uint256 amount)");

    /// @dev What every EIP-2612 permit to Permit2 approves (ERC2612_PERMIT_VALUE of libs/evm-gasless):
    /// the maximum, so the permit of one order leaves an allowance that covers the wallet's other
    /// orders signed on the same token nonce, whichever of them is relayed first.
    uint256 public constant PERMIT_VALUE = type(uint256).max;

    event Relayed(bytes32 indexed quoteHash, address indexed owner, uint256 relayFee);

    error NotGasless();
    error WrongSourceChain();
    error NativeSource();

    address public immutable permit2;
    address public immutable router;
    address public immutable feeRecipient;

    constructor(address permit2_, address router_, address feeRecipient_) {
        permit2 = permit2_;
        router = router_;
        feeRecipient = feeRecipient_;
    }

    /// @param owner The user who signed (and whose tokens move).
    /// @param nonce The Permit2 nonce the user signed (unordered; burnt by Permit2).
    /// @param deadline The Permit2 deadline, also the EIP-2612 permit's.
    /// @param signature The user's Permit2 PermitWitnessTransferFrom signature.
    /// @param permitSignature An EIP-2612 permit of PERMIT_VALUE to Permit2 (65 bytes), or empty.
    function execute(
        XchainOrder.Order calldata order,
        address owner,
        uint256 nonce,
        uint256 deadline,
        bytes calldata signature,
        bytes calldata permitSignature
    ) external {
        if (!order.gasless) revert NotGasless();
        if (order.srcChainId != block.chainid) revert WrongSourceChain();
        address token = address(uint160(uint256(order.srcToken)));
        if (token == address(0)) revert NativeSource();

        if (permitSignature.length == 65) _tryPermit(token, owner, deadline, permitSignature);
        _pull(order, token, owner, nonce, deadline, signature);

        uint256 fee = order.sponsorFees ? 0 : order.sponsorGas;
        if (fee != 0) IERC20(token).safeTransfer(feeRecipient, fee);
        // The router pulls exactly its depositAmount (amountIn - fee) and names the user.
        IERC20(token).forceApprove(router, order.amountIn - fee);
        XchainRouter(router).depositFor(order, owner);
        emit Relayed(XchainOrder.hash(order), owner, fee);
    }

    /// @notice The witness Permit2 checks: the EIP-712 struct hash of the order. Every field is
    /// static, so its encoding is the typehash followed by the ABI encoding of the struct.
    function witnessHash(XchainOrder.Order calldata order) public pure returns (bytes32) {
        return keccak256(abi.encode(ORDER_TYPEHASH, order));
    }

    function _pull(
        XchainOrder.Order calldata order,
        address token,
        address owner,
        uint256 nonce,
        uint256 deadline,
        bytes calldata signature
    ) private {
        IPermit2(permit2).permitWitnessTransferFrom(
            IPermit2.PermitTransferFrom({
                permitted: IPermit2.TokenPermissions({token: token, amount: order.amountIn}),
                nonce: nonce,
                deadline: deadline
            }),
            IPermit2.SignatureTransferDetails({to: address(this), requestedAmount: order.amountIn}),
            owner,
            witnessHash(order),
            WITNESS_TYPE_STRING,
            signature
        );
    }

    /// @dev A permit that fails must not block the order: someone front-ran it, or it was already
    /// used by another order of the same wallet signed on the same token nonce (two quotes signed
    /// before either was relayed). If the allowance it gave is there, Permit2's pull succeeds
    /// anyway; if it is not, the pull fails with Permit2's own error.
    function _tryPermit(address token, address owner, uint256 deadline, bytes calldata sig) private {
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        try IERC20Permit(token).permit(owner, permit2, PERMIT_VALUE, deadline, v, r, s) {} catch {}
    }
}
